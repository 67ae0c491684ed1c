// text-edits.js: edits of the graph text made from the other views.
//
// The text is the source of truth; the buffer panel and the graph view
// change it with these functions, touching only the lines concerned so
// that comments and layout survive. They take the meta that parseGraphText
// returned for the same text (1-based lines, column spans) and keep $N
// references right when tensors are inserted or removed.

import { nameToken } from './graph-text.js';
import { sizeLiteral } from './format.js';

const lines = (text) => text.split('\n');

/**
 * A @buffer directive.
 * @param {{name: string, alignment: number, max_size: number|string|null}} b
 * @returns {string}
 */
export function bufferDirective(b) {
  let s = `@buffer ${nameToken(b.name)} align=${b.alignment}`;
  if (b.max_size !== null && b.max_size !== undefined) s += ` max=${sizeLiteral(b.max_size)}`;
  return s;
}

/**
 * Replace buffer type b's @buffer line, or add one when b is past the last.
 * A text without any @buffer line gets explicit ones for the types before b.
 * @param {string} text
 * @param {object} meta
 * @param {number} b
 * @param {object[]} types all buffer types after the change (name, alignment, max_size)
 * @returns {string}
 */
export function setBufferLine(text, meta, b, types) {
  const ls = lines(text);
  const at = meta.bufferLines;
  if (b < at.length) {
    ls[at[b] - 1] = bufferDirective(types[b]);
    return ls.join('\n');
  }
  let insertAt;
  if (at.length) insertAt = at[at.length - 1];
  else insertAt = /^\s*@name\b/.test(ls[0] ?? '') ? 1 : 0;
  const add = types.slice(at.length, b + 1).map(bufferDirective);
  ls.splice(insertAt, 0, ...add);
  return ls.join('\n');
}

/**
 * Set the buffer type a tensor's statement is assigned to (@B), or drop the
 * modifier for type 0.
 * @param {string} text
 * @param {object} meta
 * @param {number} i tensor index
 * @param {string|null} bufToken e.g. "gpu" or "1"; null for type 0
 * @returns {string}
 */
export function setTensorBuffer(text, meta, i, bufToken) {
  const ls = lines(text);
  const li = meta.tensorLines[i] - 1;
  const st = meta.stmts[i];
  const line = ls[li];
  if (st.bufSpan) {
    const [a, b] = st.bufSpan;
    if (bufToken === null) {
      let s = a;
      while (s > 0 && line[s - 1] === ' ') s--;
      ls[li] = line.slice(0, s) + line.slice(b);
    } else {
      ls[li] = `${line.slice(0, a)}@${bufToken}${line.slice(b)}`;
    }
  } else if (bufToken !== null) {
    let e = st.codeEnd;
    while (e > 0 && line[e - 1] === ' ') e--;
    const rest = line.slice(e);
    ls[li] = `${line.slice(0, e)} @${bufToken}${rest && !rest.startsWith(' ') ? ' ' : ''}${rest}`;
  }
  return ls.join('\n');
}

/**
 * Point source slot `slot` of tensor i at another tensor.
 * @param {string} text
 * @param {object} meta
 * @param {number} i
 * @param {number} slot
 * @param {string} refText the reference to write (a name or $N)
 * @returns {string}
 */
export function rewireSource(text, meta, i, slot, refText) {
  const st = meta.stmts[i];
  const k = st.argSlots.indexOf(slot);
  if (k < 0) throw new Error(`source slot ${slot} is not an argument of this call`);
  const ls = lines(text);
  const li = meta.tensorLines[i] - 1;
  const [a, b] = st.argSpans[k];
  ls[li] = ls[li].slice(0, a) + refText + ls[li].slice(b);
  return ls.join('\n');
}

/**
 * Rewrite every $N reference outside strings and comments.
 * @param {string} line
 * @param {(n: number) => number} f new index for old index n
 * @returns {string}
 */
export function renumberRefs(line, f) {
  let out = '';
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === '#') return out + line.slice(i);
    if (c === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
      out += line.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === '$' && /\d/.test(line[i + 1] ?? '') && !/[A-Za-z0-9_.\-]/.test(line[i - 1] ?? '')) {
      let j = i + 1;
      while (j < line.length && /\d/.test(line[j])) j++;
      out += `$${f(Number(line.slice(i + 1, j)))}`;
      i = j;
      continue;
    }
    out += c;
    i++;
  }
  return out;
}

/**
 * Insert a tensor statement right after tensor `after` (-1: before the first
 * tensor statement, or at the end when there is none). $N references to
 * later tensors are shifted.
 * @param {string} text
 * @param {object} meta
 * @param {number} after
 * @param {string} statement
 * @returns {{text: string, index: number}} the new text and the new tensor's index
 */
export function insertTensor(text, meta, after, statement) {
  const ls = lines(text).map((l) => renumberRefs(l, (n) => (n > after ? n + 1 : n)));
  const tl = meta.tensorLines;
  let at;
  if (after >= 0) at = tl[after];
  else if (tl.length) at = tl[0] - 1;
  else at = ls.length;
  ls.splice(at, 0, statement);
  return { text: ls.join('\n'), index: after + 1 };
}

/**
 * Every tensor that depends on the given one (sources or view), transitively.
 * @param {object} doc
 * @param {number} i
 * @returns {number[]} sorted, including i
 */
export function dependents(doc, i) {
  const users = doc.tensors.map(() => []);
  doc.tensors.forEach((t, k) => {
    for (const s of t.src || []) if (s !== null && s !== undefined) users[s].push(k);
    if (t.view_src !== undefined && t.view_src !== null) users[t.view_src].push(k);
  });
  const seen = new Set([i]);
  const stack = [i];
  while (stack.length) {
    for (const u of users[stack.pop()]) if (!seen.has(u)) { seen.add(u); stack.push(u); }
  }
  return [...seen].sort((a, b) => a - b);
}
