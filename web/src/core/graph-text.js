// graph-text.js: the graph text language, both ways.
//
//   @buffer host align=32 max=16MiB      # buffer types, in order (default: host, 32, none)
//   @type nvfp4 block=16 size=9          # a type the tables lack (a document's "type_traits"):
//                                        # elements and bytes per block; used like f32 below
//   x0 = input(f32, 8)                   # tensors in order: ggml calls, shapes inferred as ggml does
//   w  = weight(f16, 64, 64) @1          # allocated outside the graph, in buffer type 1
//   x3 = mul_mat(w, x0) @gpu             # @B: the buffer type this node is assigned to
//   x4 = view_1d(x3, 2, 4)
//   y  = CONV_2D(k, x4) ne=[4, 4] type=f16   # any op by its printed name; modifiers override
//   z  = NEW_OP(y) sub=X alloc=[96, _] outside  # ops newer than the tables by name ("new_op"(y) when
//                                        # not in capitals); sub=: unary op/GLU;
//                                        # alloc=[...]: bytes per buffer type (_: ggml_nbytes); outside:
//                                        # memory outside any buffer (a document's "external")
//   output(x3, y)
//
// parseGraphText(text) -> {doc, meta} | {errors: [{line, message}]}
// graphToText(doc) -> text, such that parsing it gives the document back in
// every field that matters for planning. References are names (the latest
// tensor of that name above) or $N (tensor index N) where a name is ambiguous.

import { evaluateCall, ruleFor, argSlots } from './call-eval.js';
import { idiomFor } from './op-idioms.js';
import { FUNCS, SUB_OP_KEY, ShapeError } from './op-rules.js';
import { FLAGS, OPS, big, contiguousNb, docNum, isTableType, isType, ne4, trimNe, withTypes } from './ggml-types.js';
import { normalizeGraph, tensorFacts, DEFAULT_BUFFER_TYPE } from './graph-model.js';
import { sizeLiteral } from './format.js';

// a problem on one line, at column `from`: caught by the line loop and listed; not an Error, whose
// stack trace would be captured for every line of a text of 200,000 bad lines
class LineError {
  constructor(message, from) { this.message = message; this.from = from; }
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_.\-]*$/;
/** the flags of a statement that has none (most): shared, never added to (parseModifiers makes a Set) */
const NO_FLAGS = Object.freeze(new Set());
const RESERVED = new Set(['_', 'none']);
const FLAG_WORDS = new Set(['input', 'output', 'param', 'loss', 'compute', 'nocompute', 'extern', 'outside', 'detached']);
const UNIT = { b: 1n, kib: 1n << 10n, mib: 1n << 20n, gib: 1n << 30n, tib: 1n << 40n };
const MAX_NAME_BYTES = 63;
const UTF8 = new TextEncoder();
/** unknown ops past the first this many get no spelling suggestion (each costs an edit distance to every name) */
export const MAX_SUGGESTIONS = 20;
/** errors listed past this many are counted in one last entry (a 200k-line link has 200k errors) */
export const MAX_ERRORS = 200;

/**
 * A tensor or buffer name as the language writes it: bare when it is an
 * identifier, else a JSON string.
 * @param {string} name
 * @returns {string}
 */
export function nameToken(name) {
  return IDENT.test(name) && !RESERVED.has(name) ? name : JSON.stringify(name);
}

// ---- tokens -------------------------------------------------------------------

// [A-Za-z_] and [A-Za-z0-9_.-] by character code (a regular expression per character costs more
// than the rest of the tokenizer on a text of 300,000 lines)
const isIdentStart = (c) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
const isIdentPart = (c) => isIdentStart(c) || (c >= 48 && c <= 57) || c === 46 || c === 45;

function tokenize(line) {
  const toks = [];
  let i = 0;
  let codeEnd = line.length;
  while (i < line.length) {
    const c = line[i];
    if (c === ' ' || c === '\t' || c === '\r') { i++; continue; }
    if (c === '#') { codeEnd = i; break; }
    const from = i;
    if (isIdentStart(line.charCodeAt(i))) {
      let j = i + 1;
      while (j < line.length && isIdentPart(line.charCodeAt(j))) j++;
      toks.push({ k: 'id', v: line.slice(i, j), from, to: j });
      i = j;
    } else if (c === '"') {
      let j = i + 1;
      while (j < line.length && line[j] !== '"') j += line[j] === '\\' ? 2 : 1;
      if (j >= line.length) throw new LineError('unterminated string', from);
      let v;
      try { v = JSON.parse(line.slice(i, j + 1)); } catch { throw new LineError('bad escape in string', from); }
      toks.push({ k: 'str', v, from, to: j + 1 });
      i = j + 1;
    } else if (c === '$') {
      const m = /^\$(\d+)/.exec(line.slice(i));
      if (!m) throw new LineError("'$' must be followed by a tensor index, e.g. $12", from);
      toks.push({ k: 'ref', v: Number(m[1]), from, to: i + m[0].length });
      i += m[0].length;
    } else if (/[0-9.\-+]/.test(c)) {
      const m = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?([A-Za-z]*)/.exec(line.slice(i));
      if (!m || m[0] === '-' || m[0] === '+') throw new LineError(`unexpected '${c}'`, from);
      toks.push({ k: 'num', v: numberValue(m[0], m[1], m[2], m[3], from), text: m[0], from, to: i + m[0].length });
      i += m[0].length;
    } else if ('=(),[]@'.includes(c)) {
      toks.push({ k: 'p', v: c, from, to: i + 1 });
      i++;
    } else {
      throw new LineError(`unexpected '${c}'`, from);
    }
  }
  return { toks, codeEnd };
}

function numberValue(text, mant, exp, unit, from) {
  const whole = !exp && !mant.includes('.');
  if (!unit) {
    if (whole) return BigInt(text.replace('+', ''));
    return Number(text);
  }
  const mul = UNIT[unit.toLowerCase()];
  if (mul === undefined) throw new LineError(`unknown unit '${unit}' (use B, KiB, MiB, GiB, TiB)`, from);
  if (text.startsWith('-')) throw new LineError('a size cannot be negative', from);
  const [w, f = ''] = mant.replace('+', '').split('.');
  const scale = 10n ** BigInt(f.length);
  const num = BigInt(w || '0') * scale + BigInt(f || '0');
  if (exp || (num * mul) % scale !== 0n) throw new LineError(`${text} is not a whole number of bytes`, from);
  return (num * mul) / scale;
}

// ---- statements ---------------------------------------------------------------

class Cursor {
  constructor(toks, line) { this.toks = toks; this.i = 0; this.line = line; }
  peek(o = 0) { return this.toks[this.i + o]; }
  next() { return this.toks[this.i++]; }
  done() { return this.i >= this.toks.length; }
  at(k, v) { const t = this.peek(); return t && t.k === k && (v === undefined || t.v === v); }
  expect(k, v, what) {
    const t = this.next();
    if (!t || t.k !== k || (v !== undefined && t.v !== v)) {
      throw new LineError(`expected ${what}${t ? `, found '${t.text ?? t.v}'` : ' at end of line'}`, t ? t.from : this.line.length);
    }
    return t;
  }
}

function refOf(tok) {
  if (tok.k === 'ref') return { idx: tok.v, tok };
  if (tok.k === 'id' && tok.v === '_') return null;
  if (tok.k === 'id' || tok.k === 'str') return { name: tok.v, tok };
  throw new LineError(`expected a tensor, found '${tok.text ?? tok.v}'`, tok.from);
}

function parseList(cur, what, holes = false) {
  cur.expect('p', '[', `'[' to start ${what}`);
  const out = [];
  while (!cur.at('p', ']')) {
    if (holes && cur.at('id', '_')) {
      cur.next();
      out.push(null);
      if (!cur.at('p', ']')) cur.expect('p', ',', "',' or ']'");
      continue;
    }
    const t = cur.expect('num', undefined, `a number in ${what}`);
    if (typeof t.v !== 'bigint' || t.v < 0n) throw new LineError(`${what}: ${t.text} is not a whole number >= 0`, t.from);
    out.push(t.v);
    if (!cur.at('p', ']')) cur.expect('p', ',', "',' or ']'");
  }
  cur.next();
  return out;
}

function parseBufRef(cur) {
  const t = cur.next();
  if (!t) throw new LineError('expected a buffer type after @', cur.line.length);
  if (t.k === 'num' && typeof t.v === 'bigint') return { idx: Number(t.v), tok: t };
  if (t.k === 'id' || t.k === 'str') return { name: t.v, tok: t };
  throw new LineError(`expected a buffer type index or name, found '${t.text ?? t.v}'`, t.from);
}

function parseModifiers(cur, st) {
  const m = st.mods;
  while (!cur.done()) {
    const t = cur.next();
    if (t.k === 'p' && t.v === '@') {
      if (m.buf) throw new LineError('buffer type given twice', t.from);
      m.buf = parseBufRef(cur);
      st.bufSpan = [t.from, m.buf.tok.to];
      continue;
    }
    if (t.k !== 'id') throw new LineError(`unexpected '${t.text ?? t.v}' after the call`, t.from);
    if (cur.at('p', '=')) {
      cur.next();
      const key = t.v;
      if (key === 'type') {
        const v = cur.expect('id', undefined, 'a type');
        if (!isType(v.v)) throw new LineError(`unknown type '${v.v}'`, v.from);
        m.type = v.v;
      } else if (key === 'ne') {
        const ne = parseList(cur, 'ne');
        if (ne.length < 1 || ne.length > 4) throw new LineError('ne: give 1 to 4 numbers', t.from);
        m.ne = ne4(ne);
      } else if (key === 'nb') {
        const nb = parseList(cur, 'nb');
        if (nb.length !== 4) throw new LineError('nb: give 4 byte strides', t.from);
        m.nb = nb;
      } else if (key === 'view') {
        const v = cur.next();
        if (!v) throw new LineError('view= needs a tensor or none', t.from);
        m.view = v.k === 'id' && v.v === 'none' ? 'none' : refOf(v);
        if (m.view === null) throw new LineError('view= needs a tensor or none', v.from);
      } else if (key === 'alloc' && cur.at('p', '[')) {
        m.allocs = parseList(cur, 'alloc', true); // one per buffer type, _ = its byte size
      } else if (key === 'sub') {
        const v = cur.next(); // a name, or a quoted one ("1x": names the C reader keeps may start with a digit)
        if (!v || (v.k !== 'id' && v.k !== 'str')) throw new LineError('expected a unary op or GLU name after sub=', v ? v.from : cur.line.length);
        if (!/^[A-Za-z0-9_]{1,63}$/.test(v.v)) throw new LineError(`sub: ${v.v} is not a ggml op name (1 to 63 letters, digits, '_')`, v.from);
        m.sub = v.v;
      } else if (key === 'offs' || key === 'alloc') {
        const v = cur.expect('num', undefined, `a byte count after ${key}=`);
        if (typeof v.v !== 'bigint' || v.v < 0n) throw new LineError(`${key}: ${v.text} is not a byte count`, v.from);
        m[key] = v.v;
      } else if (key === 'extern') {
        m.extern = parseBufRef(cur);
      } else {
        throw new LineError(`unknown modifier '${key}=' (type=, ne=, nb=, view=, offs=, alloc=, sub=, extern=)`, t.from);
      }
      continue;
    }
    if (!FLAG_WORDS.has(t.v)) throw new LineError(`unexpected '${t.v}' after the call (flags: ${[...FLAG_WORDS].join(', ')})`, t.from);
    if (t.v === 'extern') m.extern = m.extern ?? true;
    else (m.flags === NO_FLAGS ? (m.flags = new Set()) : m.flags).add(t.v);
  }
}

function parseCall(cur, st, hints) {
  const fnTok = cur.next();
  if (!fnTok || (fnTok.k !== 'id' && fnTok.k !== 'str')) {
    throw new LineError(`expected an op call like add(a, b)${fnTok ? `, found '${fnTok.text ?? fnTok.v}'` : ' at end of line'}`, fnTok ? fnTok.from : cur.line.length);
  }
  st.fn = fnTok.k === 'str' ? JSON.stringify(fnTok.v) : fnTok.v; // a quoted name is an op by name
  if (fnTok.k === 'str' && !ruleFor(st.fn)) throw new LineError(`${st.fn} is not an op name (1 to 63 letters, digits or '_')`, fnTok.from);
  const rule = ruleFor(st.fn);
  if (!rule) throw new LineError(`unknown op '${st.fn}'${hints.suggestions-- > 0 ? suggest(st.fn) : ''}`, fnTok.from);
  cur.expect('p', '(', `'(' after ${st.fn}`);
  let first = true;
  while (!cur.at('p', ')')) {
    const t = cur.next();
    if (!t) throw new LineError(`missing ')' to close ${st.fn}(`, cur.line.length);
    if (first && rule.create) {
      if (t.k !== 'id' || !isType(t.v)) throw new LineError(`${st.fn}: first argument must be a type (f32, f16, i32, q4_0, ...), found '${t.text ?? t.v}'`, t.from);
      st.typeArg = t.v;
    } else if (t.k === 'num') {
      st.params.push(t.v);
    } else {
      if (st.params.length) throw new LineError(`${st.fn}: tensors come before numbers`, t.from);
      const r = refOf(t);
      st.argSpans.push([t.from, t.to]);
      st.args.push(r);
    }
    first = false;
    if (!cur.at('p', ')')) cur.expect('p', ',', `',' or ')' in ${st.fn}(...)`);
  }
  cur.next();
  st.rule = rule;
}

function suggest(name) {
  const lower = name.toLowerCase();
  const all = [...Object.keys(FUNCS), ...OPS];
  let best = null;
  let bestD = 3;
  for (const c of all) {
    const d = editDistance(lower, c.toLowerCase());
    if (d < bestD) { best = c; bestD = d; }
  }
  return best ? ` (did you mean ${best}?)` : '';
}

function editDistance(a, b) {
  if (Math.abs(a.length - b.length) > 2) return 9;
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return d[a.length][b.length];
}

// ---- parse --------------------------------------------------------------------

/**
 * @typedef {object} TextMeta  where things are in the text (1-based lines)
 * @property {number[]} tensorLines   line of each tensor's statement
 * @property {Array<{argSpans: number[][], argSlots: number[], bufSpan: number[]|null, codeEnd: number}>} stmts  per tensor
 * @property {number[]} bufferLines   line of each @buffer directive
 */

/**
 * Parse graph text into a graph document.
 * @param {string} text
 * @returns {{doc: object, meta: TextMeta} | {errors: Array<{line: number, message: string}>}} errors in line
 *   order, the first MAX_ERRORS of them (then one entry counting the rest); the first MAX_SUGGESTIONS
 *   unknown ops say which name was probably meant
 */
export function parseGraphText(text) {
  const lines = String(text).split('\n');
  if (!wellFormed(String(text))) return { errors: loneSurrogates(lines) };
  // @type lines first: a type may be used above the line that describes it, as a buffer type may
  const types = String(text).includes('@type') ? typeDirectives(lines) : { list: [], errors: [] };
  return withTypes(types.list.map((t) => ({ name: t.name, blck_size: t.blck, type_size: t.size })), () => parseLines(lines, types));
}

/**
 * The @type lines of a text: @type NAME block=B size=S (B elements per block, S bytes per block:
 * a type ggml's tables lack, as a document's "type_traits" describes it)
 * @param {string[]} lines
 * @returns {{list: Array<{name: string, blck: bigint, size: bigint, line: number}>, errors: Array<{line: number, message: string}>}}
 */
function typeDirectives(lines) {
  const list = [];
  const errors = [];
  lines.forEach((line, li) => {
    if (!/^\s*@\s*type\b/.test(line)) return;
    try {
      const cur = new Cursor(tokenize(line).toks, line);
      cur.next();
      cur.next();
      const n = cur.next();
      if (!n || (n.k !== 'id' && n.k !== 'str')) throw new LineError('@type needs a name: @type NAME block=B size=S', n ? n.from : line.length);
      if (isTableType(n.v)) throw new LineError(`${n.v} is one of ggml's types: @type describes types its tables lack`, n.from);
      if (list.some((t) => t.name === n.v)) throw new LineError(`type ${n.v} is described twice`, n.from);
      const t = { name: n.v, blck: null, size: null, line: li + 1 };
      while (!cur.done()) {
        const k = cur.expect('id', undefined, 'block= or size=');
        cur.expect('p', '=', `'=' after ${k.v}`);
        const v = cur.next();
        const key = { block: 'blck', blck_size: 'blck', size: 'size', type_size: 'size' }[k.v];
        if (!key) throw new LineError(`unknown type setting '${k.v}' (block=, size=)`, k.from);
        if (!v || v.k !== 'num' || typeof v.v !== 'bigint' || v.v < 1n) throw new LineError(`${k.v}: a whole number >= 1`, v ? v.from : k.to);
        t[key] = v.v;
      }
      if (t.blck === null || t.size === null) throw new LineError(`@type ${n.v}: give block= (elements per block) and size= (bytes per block)`, n.from);
      list.push(t);
    } catch (e) {
      if (!(e instanceof LineError)) throw e;
      errors.push({ line: li + 1, message: e.message });
    }
  });
  return { list, errors };
}

function parseLines(lines, types) {
  const errors = types.errors.slice();
  const err = (line, message) => errors.push({ line, message });
  const hints = { suggestions: MAX_SUGGESTIONS };
  // where each name is first defined, for the message about a name used before its line: made
  // when the first such error needs it, not for every text
  let defLines = null;
  const defLine = (name) => {
    if (defLines === null) {
      defLines = new Map();
      lines.forEach((l, i) => {
        const m = /^\s*("(?:[^"\\]|\\.)*"|[A-Za-z_][A-Za-z0-9_.\-]*)\s*=/.exec(l);
        if (!m) return;
        let n = m[1];
        try { if (n.startsWith('"')) n = JSON.parse(n); } catch { return; }
        if (!defLines.has(n)) defLines.set(n, i + 1);
      });
    }
    return defLines.get(name);
  };

  let docName = null;
  const buffers = [];
  const stmts = [];
  const outputs = [];
  const dirs = {};
  const scope = new Map();

  const resolveName = (r, lineNo) => {
    if (!r || r.idx !== undefined) return r;
    const idx = scope.get(r.name);
    if (idx === undefined) {
      const later = defLine(r.name);
      const what = nameToken(r.name);
      throw new LineError(later && later > lineNo ? `${what} is defined later (line ${later}); define tensors before using them` : `unknown tensor ${what}`, r.tok.from);
    }
    return { idx, tok: r.tok };
  };

  lines.forEach((line, li) => {
    const lineNo = li + 1;
    let st = null;
    try {
      const { toks, codeEnd } = tokenize(line);
      if (!toks.length) return;
      const cur = new Cursor(toks, line);
      const t0 = cur.peek();
      if (t0.k === 'p' && t0.v === '@') {
        cur.next();
        const d = cur.expect('id', undefined, 'a directive (@buffer, @type, @name, @nodes, @leafs)');
        if (d.v === 'buffer') {
          const n = cur.next();
          if (!n || (n.k !== 'id' && n.k !== 'str')) throw new LineError('@buffer needs a name', n ? n.from : line.length);
          const b = { name: n.v, alignment: 32n, max_size: null, line: lineNo };
          while (!cur.done()) {
            const k = cur.expect('id', undefined, 'align= or max=');
            cur.expect('p', '=', `'=' after ${k.v}`);
            const v = cur.next();
            if (k.v === 'align' || k.v === 'alignment') {
              if (!v || v.k !== 'num' || typeof v.v !== 'bigint' || v.v <= 0n || (v.v & (v.v - 1n)) !== 0n) {
                throw new LineError('align: must be a power of two', v ? v.from : k.from);
              }
              b.alignment = v.v;
            } else if (k.v === 'max' || k.v === 'max_size') {
              if (v && v.k === 'id' && v.v === 'none') b.max_size = null;
              else if (v && v.k === 'num' && typeof v.v === 'bigint' && v.v > 0n) b.max_size = v.v;
              else throw new LineError('max: a size in bytes (e.g. 16MiB) or none', v ? v.from : k.from);
            } else {
              throw new LineError(`unknown buffer setting '${k.v}' (align=, max=)`, k.from);
            }
          }
          buffers.push(b);
        } else if (d.v === 'type') {
          // read before the other lines (typeDirectives)
        } else if (d.v === 'name' || d.v === 'graph') {
          const n = cur.next();
          if (!n || (n.k !== 'id' && n.k !== 'str')) throw new LineError('@name needs a name', line.length);
          docName = n.v;
        } else if (d.v === 'nodes' || d.v === 'leafs') {
          const list = [];
          while (!cur.done()) {
            list.push(resolveName(refOf(cur.next()), lineNo));
            if (!cur.done()) cur.expect('p', ',', "','");
          }
          dirs[d.v] = { list, line: lineNo };
        } else {
          throw new LineError(`unknown directive @${d.v} (@buffer, @type, @name, @nodes, @leafs)`, d.from);
        }
        return;
      }
      if (t0.k === 'id' && (t0.v === 'output' || t0.v === 'ggml_set_output') && cur.peek(1) && cur.peek(1).k === 'p' && cur.peek(1).v === '(') {
        cur.next(); cur.next();
        while (!cur.at('p', ')')) {
          const t = cur.next();
          if (!t) throw new LineError("missing ')'", line.length);
          outputs.push({ ref: resolveName(refOf(t), lineNo), line: lineNo });
          if (!cur.at('p', ')')) cur.expect('p', ',', "',' or ')'");
        }
        cur.next();
        if (!cur.done()) throw new LineError('unexpected text after output(...)', cur.peek().from);
        return;
      }
      const target = cur.next();
      if (target.k !== 'id' && target.k !== 'str') throw new LineError('expected a statement: name = op(...), output(...), or @directive', target.from);
      if (target.k === 'id' && RESERVED.has(target.v)) throw new LineError(`'${target.v}' cannot name a tensor (quote it: "${target.v}")`, target.from);
      cur.expect('p', '=', `'=' after ${target.v}`);
      st = { line: lineNo, name: target.v, fn: '', rule: null, typeArg: undefined, args: [], params: [], argSpans: [],
        bufSpan: null, codeEnd, mods: { flags: NO_FLAGS }, index: stmts.length, broken: false };
      parseCall(cur, st, hints);
      parseModifiers(cur, st);
      st.args = st.args.map((r) => resolveName(r, lineNo));
      if (st.mods.view && st.mods.view !== 'none') st.mods.view = resolveName(st.mods.view, lineNo);
      if (st.name.length > MAX_NAME_BYTES / 3 && UTF8.encode(st.name).length > MAX_NAME_BYTES) throw new LineError(`name longer than ${MAX_NAME_BYTES} bytes`, target.from);
    } catch (e) {
      if (!(e instanceof LineError)) throw e;
      err(lineNo, e.message);
      if (st) st.broken = true;
    }
    if (st) {
      stmts.push(st);
      scope.set(st.name, st.index);
    }
  });

  const n = stmts.length;
  if (!buffers.length) buffers.push({ name: DEFAULT_BUFFER_TYPE.name, alignment: 32n, max_size: null, line: 0 });
  const bufIndex = (r, lineNo) => {
    if (r.idx !== undefined) {
      if (r.idx >= buffers.length) throw new LineError(`buffer type ${r.idx} does not exist (there ${buffers.length === 1 ? 'is 1' : `are ${buffers.length}`})`, r.tok.from);
      return r.idx;
    }
    const k = buffers.findIndex((b) => b.name === r.name);
    if (k < 0) throw new LineError(`unknown buffer type '${r.name}' (declare it with @buffer ${nameToken(r.name)})`, r.tok.from);
    return k;
  };
  const checkIdx = (r) => {
    if (r && r.idx >= n) throw new LineError(`$${r.idx}: there are only ${n} tensors`, r.tok.from);
  };

  for (const st of stmts) {
    if (st.broken) continue;
    try {
      st.args.forEach(checkIdx);
      if (st.mods.view && st.mods.view !== 'none') checkIdx(st.mods.view);
      st.bufId = st.mods.buf ? bufIndex(st.mods.buf, st.line) : 0;
      if (st.mods.extern && st.mods.extern !== true) st.externId = bufIndex(st.mods.extern, st.line);
      else if (st.mods.extern === true || st.rule.external) st.externId = st.bufId;
      else st.externId = -1;
    } catch (e) {
      if (!(e instanceof LineError)) throw e;
      err(st.line, e.message);
      st.broken = true;
    }
  }
  for (const o of outputs) {
    try { checkIdx(o.ref); } catch (e) { err(o.line, e.message); }
  }
  for (const d of Object.values(dirs)) {
    for (const r of d.list) try { checkIdx(r); } catch (e) { err(d.line, e.message); }
  }

  // evaluate in dependency order, so that $N may refer forward
  const deps = stmts.map((st, i) => {
    const ds = st.args.filter(Boolean).map((r) => r.idx);
    if (st.mods.view && st.mods.view !== 'none') ds.push(st.mods.view.idx);
    return ds.filter((d) => d < n && d !== i); // a tensor naming itself (ggml_cast's src[1]) is no cycle
  });
  // names refer to tensors above; only $N may point below, and then the order is worked out
  const order = deps.every((ds, i) => ds.every((d) => d < i)) ? Array.from({ length: n }, (_, i) => i) : topoOrder(n, deps);
  const evaluated = new Array(n).fill(null);
  const failed = new Uint8Array(n);
  const inOrder = new Uint8Array(n);
  for (const i of order) inOrder[i] = 1;
  for (let i = 0; i < n; i++) {
    if (!inOrder[i] && !stmts[i].broken) { err(stmts[i].line, `${nameToken(stmts[i].name)} depends on itself (a cycle through its sources)`); failed[i] = 1; }
  }
  for (const i of order) {
    const st = stmts[i];
    if (st.broken || deps[i].some((d) => failed[d] || !evaluated[d])) { failed[i] = 1; continue; }
    try {
      const first = st.args[0] ? evaluated[st.args[0].idx] : null;
      const src = (r) => (r ? (r.idx === i ? selfSource(i, st.name, first, st.mods) : evaluated[r.idx]) : null);
      const mods = { type: st.mods.type, ne: st.mods.ne, nb: st.mods.nb, offs: st.mods.offs, sub: st.mods.sub };
      if (st.mods.view !== undefined) mods.view = st.mods.view === 'none' ? null : src(st.mods.view);
      const e = evaluateCall({ fn: st.fn, args: st.args.map(src), params: st.params, type: st.typeArg }, mods);
      evaluated[i] = { index: i, name: st.name, type: e.type, ne: e.ne, nb: e.nb, viewSrc: e.viewSrc, viewOffs: e.viewOffs, op: e.op, sub: e.sub, src: e.src };
    } catch (e) {
      if (!(e instanceof ShapeError)) throw e;
      err(st.line, e.message);
      failed[i] = 1;
    }
  }
  if (errors.length) {
    errors.sort((a, b) => a.line - b.line);
    if (errors.length > MAX_ERRORS) {
      const more = errors.length - MAX_ERRORS;
      errors.length = MAX_ERRORS;
      errors.push({ line: errors[MAX_ERRORS - 1].line, message: `${more} more errors (only the first ${MAX_ERRORS} are listed)` });
    }
    return { errors };
  }
  const doc = buildDoc(docName, buffers, stmts, evaluated, outputs, dirs);
  if (types.list.length) doc.type_traits = types.list.map((t) => ({ name: t.name, blck_size: docNum(t.blck), type_size: docNum(t.size) }));
  return { doc, meta: { ...buildMeta(stmts, buffers), typeLines: types.list.map((t) => t.line) } };
}

/** @param {string} text @returns {boolean} false when it holds a lone UTF-16 surrogate */
function wellFormed(text) {
  if (typeof text.isWellFormed === 'function') return text.isWellFormed();
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

/**
 * The lone UTF-16 surrogates of a text, each an error at its line and column (a pasted broken
 * character no UTF-8 text can hold: refused, never turned into U+FFFD behind the user's back)
 * @param {string[]} lines
 * @returns {Array<{line: number, message: string}>}
 */
function loneSurrogates(lines) {
  const errors = [];
  let more = 0;
  lines.forEach((l, li) => {
    if (wellFormed(l)) return;
    for (let i = 0; i < l.length; i++) {
      const c = l.charCodeAt(i);
      if (c < 0xd800 || c > 0xdfff) continue;
      if (c <= 0xdbff && (l.charCodeAt(i + 1) & 0xfc00) === 0xdc00) { i++; continue; }
      const code = `U+${c.toString(16).toUpperCase()}`;
      if (errors.length < MAX_ERRORS) errors.push({ line: li + 1, message: `a lone UTF-16 surrogate (${code}) at column ${i + 1}, half of a character: no text file can hold it (remove it, or paste the character again)` });
      else more++;
    }
  });
  if (more) errors.push({ line: errors[MAX_ERRORS - 1].line, message: `${more} more errors (only the first ${MAX_ERRORS} are listed)` });
  return errors;
}

/**
 * A tensor as its own source (ggml_cast makes a CPY whose src[1] is the result): a new contiguous
 * tensor of the first argument's shape, or of type= / ne= when given. The printer and the parser
 * both use this, so the text reads back to the same tensor.
 */
function selfSource(index, name, first, mods) {
  const type = mods.type ?? first?.type ?? 'f32';
  const ne = mods.ne ?? first?.ne ?? [1n, 1n, 1n, 1n];
  return { index, name, type, ne, nb: contiguousNb(type, ne), viewSrc: -1, viewOffs: 0n };
}

function topoOrder(n, deps) {
  const indeg = new Int32Array(n);
  const users = Array.from({ length: n }, () => []);
  deps.forEach((ds, i) => { for (const d of new Set(ds)) { indeg[i]++; users[d].push(i); } });
  const order = [];
  const queue = [];
  for (let i = 0; i < n; i++) if (indeg[i] === 0) queue.push(i);
  for (let q = 0; q < queue.length; q++) {
    const i = queue[q];
    order.push(i);
    for (const u of users[i]) if (--indeg[u] === 0) queue.push(u);
  }
  return order;
}

function buildDoc(docName, buffers, stmts, ev, outputs, dirs) {
  const n = stmts.length;
  const outFlag = new Uint8Array(n);
  for (const o of outputs) outFlag[o.ref.idx] = 1;
  const isNodeKind = (i) => ev[i].op !== 'NONE' || stmts[i].mods.flags.has('param') || stmts[i].rule.flags?.includes('param');
  const listed = new Set();
  for (const d of Object.values(dirs)) for (const r of d.list) listed.add(r.idx);
  const derived = [[], []]; // leafs, nodes in text order
  if (!dirs.nodes || !dirs.leafs) {
    for (let i = 0; i < n; i++) if (!stmts[i].mods.flags.has('detached') && !listed.has(i)) derived[isNodeKind(i) ? 1 : 0].push(i);
  }
  const nodes = dirs.nodes ? dirs.nodes.list.map((r) => r.idx) : derived[1];
  const leafs = dirs.leafs ? dirs.leafs.list.map((r) => r.idx) : derived[0];
  const isNode = new Uint8Array(n);
  for (const i of nodes) isNode[i] = 1;
  const tensors = stmts.map((st, i) => {
    const e = ev[i];
    const flags = st.rule.flags?.length || st.mods.flags.size ? new Set([...(st.rule.flags || []), ...st.mods.flags]) : new Set();
    if (outFlag[i]) flags.add('output');
    if (isNode[i] && !flags.has('nocompute')) flags.add('compute');
    const t = { name: st.name, op: e.op };
    if (e.sub) t[SUB_OP_KEY[e.op]] = e.sub;
    Object.assign(t, { type: e.type, ne: trimNe(e.ne).map(docNum) });
    const cont = contiguousNb(e.type, e.ne);
    if (!e.nb.every((v, k) => v === cont[k])) t.nb = e.nb.map(docNum);
    const src = e.src.slice();
    while (src.length && src[src.length - 1] === null) src.pop();
    if (src.length) t.src = src;
    if (e.viewSrc >= 0) { t.view_src = e.viewSrc; t.view_offs = docNum(e.viewOffs); }
    const fl = FLAGS.filter((f) => flags.has(f));
    if (fl.length) t.flags = fl;
    if (st.mods.alloc !== undefined) t.alloc_size = docNum(st.mods.alloc);
    if (st.mods.allocs !== undefined) t.alloc_sizes = st.mods.allocs.map((v) => (v === null ? null : docNum(v)));
    if (st.externId >= 0) t.buffer_type = st.externId;
    else if (st.mods.flags.has('outside')) t.external = true; // memory outside any buffer (data, no buffer)
    return t;
  });
  const doc = {
    format: 'galloc-graph',
    version: 1,
    name: docName ?? 'graph',
    buffer_types: buffers.map((b) => ({ name: b.name, alignment: Number(b.alignment), max_size: b.max_size === null ? null : docNum(b.max_size) })),
    tensors,
    nodes,
    leafs,
  };
  const nodeIds = nodes.map((i) => stmts[i].bufId);
  const leafIds = leafs.map((i) => stmts[i].bufId);
  if (nodeIds.some((v) => v) || leafIds.some((v) => v)) {
    doc.node_buffer_ids = nodeIds;
    doc.leaf_buffer_ids = leafIds;
  }
  return doc;
}

function buildMeta(stmts, buffers) {
  return {
    tensorLines: stmts.map((s) => s.line),
    stmts: stmts.map((s) => ({ argSpans: s.argSpans, argSlots: argSlots(s.rule, s.args.length), bufSpan: s.bufSpan, codeEnd: s.codeEnd })),
    bufferLines: buffers.map((b) => b.line).filter((l) => l > 0),
  };
}

// ---- print --------------------------------------------------------------------

/**
 * Write a graph document as text (see the top of this file). The document is one the C reader
 * has read (Galloc.normalize, preset, a model's document) or the parser made: nothing here
 * checks it again.
 * @param {object} input
 * @returns {string}
 */
export function graphToText(input) {
  return graphToTextLines(input).text;
}

/**
 * graphToText, and the line each tensor is written on (1-based): what the editor needs to find a
 * tensor, without parsing the text back.
 * @param {object} input
 * @returns {{text: string, tensorLines: number[]}}
 */
export function graphToTextLines(input) {
  const doc = normalizeGraph(input);
  return withTypes(doc.type_traits, () => {
    const steps = printSteps(doc);
    for (;;) {
      const r = steps.next();
      if (r.done) return r.value;
    }
  });
}

/** tensors written between two looks at the clock (graphTextWriter) */
const PRINT_SLICE = 256;

/**
 * graphToTextLines a slice at a time, for a big document written without one long task (the
 * editor's text of a 300,000-tensor import): write(ms) writes tensors for about ms milliseconds and
 * returns null while some are left, then {text, tensorLines}, the very result graphToTextLines
 * gives. It throws as graphToTextLines throws (a tensor no text can say).
 * @param {object} input
 * @returns {{write: (ms: number) => ({text: string, tensorLines: number[]}|null)}}
 */
export function graphTextWriter(input) {
  const doc = normalizeGraph(input);
  const steps = printSteps(doc);
  let result = null;
  return {
    write(ms) {
      if (result) return result;
      return withTypes(doc.type_traits, () => {
        const t0 = performance.now();
        for (;;) {
          const r = steps.next();
          if (r.done) return (result = r.value);
          if (performance.now() - t0 >= ms) return null;
        }
      });
    },
  };
}

/** the printer: yields after every PRINT_SLICE tensors, returns {text, tensorLines} (run inside withTypes) */
function* printSteps(doc) {
  const facts = new Array(doc.tensors.length); // tensorFacts of each tensor, when first needed
  const fact = (j) => (facts[j] ??= tensorFacts(doc.tensors[j], j));
  const n = doc.tensors.length;
  const out = [];
  out.push(`@name ${nameToken(doc.name)}`);
  (doc.type_traits ?? []).forEach((t, k) => {
    // a document's own types; those of the tables (an exported graph lists every type it uses) go
    // without saying
    if (isTableType(t.name)) return;
    if (!IDENT.test(t.name) || RESERVED.has(t.name)) throw new Error(`type_traits[${k}].name: ${JSON.stringify(t.name)} cannot be written as graph text (a type is a name of letters, digits, '_', '.', '-')`);
    out.push(`@type ${t.name} block=${t.blck_size} size=${t.type_size}`);
  });
  const bufNames = doc.buffer_types.map((b) => b.name);
  const bufRef = (k) => (IDENT.test(bufNames[k]) && bufNames.indexOf(bufNames[k]) === k && !/^\d/.test(bufNames[k]) ? bufNames[k] : String(k));
  doc.buffer_types.forEach((b) => {
    let s = `@buffer ${nameToken(b.name)} align=${b.alignment}`;
    if (b.max_size !== null && b.max_size !== undefined) s += ` max=${sizeLiteral(b.max_size)}`;
    out.push(s);
  });
  out.push('');

  const inGraph = new Uint8Array(n);
  const isNode = new Uint8Array(n);
  const assigned = new Int32Array(n);
  doc.nodes.forEach((t, k) => { if (!inGraph[t]) assigned[t] = doc.node_buffer_ids[k]; inGraph[t] = 1; isNode[t] = 1; });
  doc.leafs.forEach((t, k) => { if (!inGraph[t]) assigned[t] = doc.leaf_buffer_ids[k]; inGraph[t] = 1; });
  const nodeKind = (t) => t.op !== 'NONE' || (t.flags || []).includes('param');
  const idxs = [...Array(n).keys()];
  const dNodes = idxs.filter((i) => inGraph[i] && nodeKind(doc.tensors[i]));
  const dLeafs = idxs.filter((i) => inGraph[i] && !nodeKind(doc.tensors[i]));
  const sameList = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
  const explicitOrder = !sameList(dNodes, doc.nodes) || !sameList(dLeafs, doc.leafs);

  const scope = new Map();
  const ref = (j) => (scope.get(doc.tensors[j].name) === j ? nameToken(doc.tensors[j].name) : `$${j}`);
  const srcObj = (j) => {
    const f = fact(j);
    return { index: j, name: doc.tensors[j].name, type: doc.tensors[j].type, ne: f.ne, nb: f.nb, viewSrc: f.root === j ? -1 : f.root, viewOffs: f.offs };
  };

  const tensorLines = new Array(n);
  for (let i = 0; i < n; i++) {
    const t = doc.tensors[i];
    const self = srcObj(i);
    const src = (t.src || []).slice();
    while (src.length && (src[src.length - 1] === null || src[src.length - 1] === undefined)) src.pop();
    const first = src[0] !== null && src[0] !== undefined && src[0] !== i ? srcObj(src[0]) : null;
    const srcOf = (j) => (j === i ? selfSource(i, t.name, first, {}) : srcObj(j));
    const srcs = src.map((j) => (j === null || j === undefined ? null : srcOf(j)));
    const want = { op: t.op, sub: (SUB_OP_KEY[t.op] && t[SUB_OP_KEY[t.op]]) || null, type: t.type, ne: self.ne, nb: self.nb, src: src.map((j) => j ?? null), viewSrc: self.viewSrc, viewOffs: self.viewOffs };
    const call = printCall(t, self, srcs, want, srcOf);
    const parts = [`${nameToken(t.name)} = ${call.fn}(${call.argText(ref)})`, ...call.mods(ref)];
    const flags = new Set(t.flags || []);
    if (t.alloc_size !== undefined) parts.push(`alloc=${t.alloc_size}`);
    if (Array.isArray(t.alloc_sizes)) parts.push(`alloc=[${t.alloc_sizes.map((v) => (v === null ? '_' : String(v))).join(', ')}]`);
    if (assigned[i]) parts.push(`@${bufRef(assigned[i])}`);
    if (t.buffer_type !== undefined && t.buffer_type !== null) {
      const implied = call.fn === 'weight';
      if (t.buffer_type !== assigned[i]) parts.push(`extern=${bufRef(t.buffer_type)}`);
      else if (!implied) parts.push('extern');
    }
    if (t.external === true && (t.buffer_type === undefined || t.buffer_type === null)) parts.push('outside');
    if (flags.has('input') && call.fn !== 'input') parts.push('input');
    if (flags.has('param') && call.fn !== 'param') parts.push('param');
    if (flags.has('loss')) parts.push('loss');
    const defaultCompute = explicitOrder ? isNode[i] : inGraph[i] && nodeKind(t);
    if (flags.has('compute') && !defaultCompute) parts.push('compute');
    if (!flags.has('compute') && defaultCompute) parts.push('nocompute');
    if (!inGraph[i] && !explicitOrder) parts.push('detached');
    out.push(parts.join(' '));
    tensorLines[i] = out.length;
    scope.set(t.name, i);
    if (i % PRINT_SLICE === PRINT_SLICE - 1) yield;
  }
  const outs = idxs.filter((i) => (doc.tensors[i].flags || []).includes('output'));
  if (outs.length) {
    out.push('');
    for (let k = 0; k < outs.length; k += 8) out.push(`output(${outs.slice(k, k + 8).map(ref).join(', ')})`);
  }
  if (explicitOrder) {
    out.push('');
    out.push(`@nodes ${doc.nodes.map(ref).join(', ')}`);
    out.push(`@leafs ${doc.leafs.map(ref).join(', ')}`);
  }
  return { text: `${out.join('\n')}\n`, tensorLines };
}

function sameEval(e, w) {
  const eqB = (a, b) => a.length === b.length && a.every((v, k) => v === b[k]);
  return e.op === w.op && e.type === w.type && eqB(e.ne, w.ne) && eqB(e.nb, w.nb) && e.viewSrc === w.viewSrc && e.viewOffs === w.viewOffs
    && e.src.length === w.src.length && e.src.every((v, k) => v === w.src[k]);
}

/** the call for one tensor and the modifiers that make it exact */
function printCall(t, self, srcs, want, srcObj) {
  const attempt = (fn, args, params, type, anySub = false) => {
    const call = { fn, args: args.map((j) => (j === null ? null : srcObj(j))), params, type };
    let e;
    try { e = evaluateCall(call, {}); } catch { return null; }
    if (e.op !== want.op || e.src.length !== want.src.length || !e.src.every((v, k) => v === want.src[k])) return null;
    if (!anySub && e.sub !== want.sub) return null;
    const mods = {};
    const text = [];
    const add = () => {
      try { return evaluateCall(call, mods); } catch { return null; }
    };
    if (e.type !== want.type) { mods.type = want.type; text.push(() => `type=${want.type}`); e = add(); }
    if (e && !e.ne.every((v, k) => v === want.ne[k])) { mods.ne = want.ne; text.push(() => `ne=[${trimNe(want.ne).join(', ')}]`); e = add(); }
    if (e && !e.nb.every((v, k) => v === want.nb[k])) { mods.nb = want.nb; text.push(() => `nb=[${want.nb.join(', ')}]`); e = add(); }
    if (e && e.viewSrc !== want.viewSrc) {
      mods.view = want.viewSrc >= 0 ? srcObj(want.viewSrc) : null;
      const v = want.viewSrc;
      text.push((ref) => `view=${v >= 0 ? ref(v) : 'none'}`);
      e = add();
    }
    if (e && e.viewOffs !== want.viewOffs) { mods.offs = want.viewOffs; text.push(() => `offs=${want.viewOffs}`); e = add(); }
    if (!e || !sameEval(e, want)) return null;
    const pText = params.map(String);
    return {
      fn,
      argText: (ref) => [...(type ? [type] : []), ...args.map((j) => (j === null ? '_' : ref(j))), ...pText].join(', '),
      mods: (ref) => text.map((f) => f(ref)),
    };
  };
  const idiom = idiomFor(t, self, srcs);
  if (idiom) {
    const r = attempt(idiom.fn, idiom.args, idiom.params, idiom.type);
    if (r) return r;
  }
  const raw = attempt(/^[A-Z][A-Z0-9_]*$/.test(t.op) ? t.op : JSON.stringify(t.op), want.src, [], undefined, true); // the op by name; a sub-op no call has as sub=
  if (raw && want.sub) {
    const mods = raw.mods;
    const subText = /^[A-Za-z_][A-Za-z0-9_]*$/.test(want.sub) ? want.sub : JSON.stringify(want.sub);
    return { ...raw, mods: (ref) => [...mods(ref), `sub=${subText}`] };
  }
  if (raw) return raw;
  throw new Error(`tensors[${self.index}]: cannot be written as graph text (${t.op} of ${t.type} [${trimNe(want.ne).join(', ')}])`);
}
