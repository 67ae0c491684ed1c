// c-bad-documents.js: the C bad-input table (BAD_DOCUMENTS in tests/c/test-document.c) read from
// its source, so the UI's import path is tested on the very documents the C reader's test uses
// (one table, not a copy that drifts). Understands what the table is written with: C string
// literals (adjacent ones joined; escapes \" \\ \n \t \xHH), the macros #defined in that file as
// string literals, the row kinds EXACT / PREFIX / LIMIT (enum bad_expect), comments.

import { readFileSync } from 'node:fs';
import path from 'node:path';

import { ROOT } from './wasm-helpers.js';

const SOURCE = path.join(ROOT, 'tests/c/test-document.c');

/** the bytes of the C string literal starting at s[i] (a '"'), and the index after it */
function literal(s, i) {
  const out = [];
  const utf8 = new TextEncoder();
  let j = i + 1;
  while (s[j] !== '"') {
    if (j >= s.length) throw new Error(`${SOURCE}: unterminated string literal at offset ${i}`);
    if (s[j] !== '\\') {
      const cp = s.codePointAt(j);
      const ch = String.fromCodePoint(cp);
      out.push(...utf8.encode(ch));
      j += ch.length;
      continue;
    }
    const e = s[j + 1];
    if (e === 'x') {
      const m = /^[0-9A-Fa-f]+/.exec(s.slice(j + 2));
      out.push(parseInt(m[0], 16) & 0xff);
      j += 2 + m[0].length;
    } else {
      const simple = { '"': 0x22, '\\': 0x5c, n: 0x0a, t: 0x09, r: 0x0d, '0': 0x00 }[e];
      if (simple === undefined) throw new Error(`${SOURCE}: escape \\${e} not understood by this reader`);
      out.push(simple);
      j += 2;
    }
  }
  return { bytes: out, end: j + 1 };
}

/** the tokens of C text: {k: 'str', bytes} | {k: 'id', v} | {k: 'p', v} */
function tokens(s) {
  const toks = [];
  let i = 0;
  while (i < s.length) {
    if (/\s/.test(s[i])) { i++; continue; }
    if (s.startsWith('//', i)) { i = s.indexOf('\n', i); if (i < 0) break; continue; }
    if (s.startsWith('/*', i)) { i = s.indexOf('*/', i) + 2; continue; }
    if (s[i] === '"') {
      const { bytes, end } = literal(s, i);
      const last = toks[toks.length - 1];
      if (last && last.k === 'str') last.bytes.push(...bytes); // "a" "b" is "ab"
      else toks.push({ k: 'str', bytes });
      i = end;
      continue;
    }
    const id = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(i, i + 64));
    if (id) { toks.push({ k: 'id', v: id[0] }); i += id[0].length; continue; }
    toks.push({ k: 'p', v: s[i] });
    i++;
  }
  return toks;
}

/**
 * The rows of BAD_DOCUMENTS.
 * @returns {Array<{bytes: Uint8Array, text: string, expected: string, prefix: boolean, limit: boolean}>}
 *   prefix: expected is only the message's start; limit: the status is a limit of the reader
 */
export function cBadDocuments() {
  const src = readFileSync(SOURCE, 'utf8');
  const macros = new Map();
  for (const m of src.matchAll(/^#define (\w+) (".*?")\s*(\/\/.*)?$/gm)) {
    const t = tokens(m[2]);
    macros.set(m[1], t[0].bytes);
  }
  const start = src.indexOf('BAD_DOCUMENTS[] = {');
  const end = src.indexOf('\n};', start);
  if (start < 0 || end < 0) throw new Error(`${SOURCE}: no BAD_DOCUMENTS table`);
  // expand the macros into string tokens, then join adjacent strings again
  const raw = tokens(src.slice(src.indexOf('{', start) + 1, end));
  const toks = [];
  for (const t of raw) {
    const tok = t.k === 'id' && macros.has(t.v) ? { k: 'str', bytes: [...macros.get(t.v)] } : t;
    const last = toks[toks.length - 1];
    if (tok.k === 'str' && last && last.k === 'str') last.bytes.push(...tok.bytes);
    else toks.push(tok.k === 'str' ? { k: 'str', bytes: [...tok.bytes] } : tok);
  }
  const rows = [];
  const dec = new TextDecoder();
  for (let i = 0; i < toks.length; i++) {
    if (toks[i].k !== 'p' || toks[i].v !== '{') continue;
    const [doc, c1, exp, c2, flag, close] = toks.slice(i + 1, i + 7);
    const ok = doc?.k === 'str' && c1?.v === ',' && exp?.k === 'str' && c2?.v === ',' && ['EXACT', 'PREFIX', 'LIMIT'].includes(flag?.v) && close?.v === '}';
    if (!ok) throw new Error(`${SOURCE}: BAD_DOCUMENTS row ${rows.length} is not { "document", "message", EXACT|PREFIX|LIMIT }`);
    const bytes = Uint8Array.from(doc.bytes);
    rows.push({ bytes, text: dec.decode(bytes), expected: dec.decode(Uint8Array.from(exp.bytes)), prefix: flag.v === 'PREFIX', limit: flag.v === 'LIMIT' });
    i += 6;
  }
  return rows;
}
