// op-idioms.js: the ggml call that most naturally wrote a document tensor.
//
// Given a tensor of a graph document and its sources, finds the call of
// the text language a ggml developer would have written: mul_mat(a, b),
// view_2d(a, 8, 64, 128, 96), permute(a, 0, 2, 1, 3), concat(a, b, 1), ...
// with the numeric arguments recovered from the shapes. Returns null when
// no such call fits; the printer then writes the op by name (MUL_MAT(a, b)).

import { FUNCS } from './op-rules.js';
import { contiguousNb, typeTraits } from './ggml-types.js';

/**
 * @typedef {import('./op-rules.js').Src} Src
 * @typedef {{fn: string, args: number[], params: bigint[], type?: string}} Idiom
 */

const PERMS = (() => {
  const out = [];
  for (let a = 0; a < 4; a++) for (let b = 0; b < 4; b++) for (let c = 0; c < 4; c++) for (let d = 0; d < 4; d++) {
    if (new Set([a, b, c, d]).size === 4) out.push([a, b, c, d]);
  }
  return out;
})();

const eq = (x, y) => x.length === y.length && x.every((v, i) => v === y[i]);
const ndims = (ne) => { let n = 4; while (n > 1 && ne[n - 1] === 1n) n--; return n; };

/**
 * @param {object} t     the document tensor (flags, buffer_type used for creation calls)
 * @param {Src} self     the tensor as evaluated from the document
 * @param {(Src|null)[]} s  its sources in slot order, trailing holes trimmed
 * @returns {Idiom|null}
 */
export function idiomFor(t, self, s) {
  const holes = s.some((x) => !x);
  const ix = (...k) => k.map((i) => s[i].index);
  const n = s.length;
  const a = s[0];
  if (t.op === 'NONE') {
    if (n) return null;
    const flags = t.flags || [];
    const fn = flags.includes('input') ? 'input' : flags.includes('param') ? 'param'
      : t.buffer_type !== undefined && t.buffer_type !== null ? 'weight' : 'leaf';
    return { fn, args: [], params: self.ne.slice(0, ndims(self.ne)), type: t.type };
  }
  if (holes || n === 0) return null;
  switch (t.op) {
    case 'UNARY': {
      if (n !== 1) return null;
      const fn = typeof t.unary_op === 'string' ? t.unary_op.toLowerCase() : 'unary';
      return { fn: Object.hasOwn(FUNCS, fn) ? fn : 'unary', args: ix(0), params: [] };
    }
    case 'GLU': {
      const base = typeof t.glu_op === 'string' ? t.glu_op.toLowerCase() : 'glu';
      const fn = n === 2 && base !== 'glu' ? `${base}_split` : base;
      return { fn: Object.hasOwn(FUNCS, fn) ? fn : 'glu', args: ix(...s.keys()), params: [] };
    }
    case 'SOFT_MAX': return { fn: n === 1 ? 'soft_max' : 'soft_max_ext', args: ix(...s.keys()), params: [] };
    case 'ROPE': return { fn: 'rope', args: ix(...s.keys()), params: [] };
    case 'CONCAT': {
      if (n !== 2) return null;
      let dim = 0;
      for (let d = 0; d < 4; d++) if (self.ne[d] !== a.ne[d]) dim = d;
      return { fn: 'concat', args: ix(0, 1), params: [BigInt(dim)] };
    }
    case 'PAD': {
      if (n !== 1) return null;
      const p = self.ne.map((v, i) => v - a.ne[i]);
      if (p.some((v) => v < 0n)) return null;
      let k = 4;
      while (k > 1 && p[k - 1] === 0n) k--;
      return { fn: 'pad', args: ix(0), params: p.slice(0, k) };
    }
    case 'RESHAPE': {
      if (n !== 1) return null;
      const k = ndims(self.ne);
      return { fn: `reshape_${k}d`, args: ix(0), params: self.ne.slice(0, k) };
    }
    case 'VIEW': return n === 1 ? viewIdiom(self, a) : null;
    case 'PERMUTE': {
      if (n !== 1) return null;
      const p = PERMS.find((ax) => ax.every((x, i) => self.ne[x] === a.ne[i] && self.nb[x] === a.nb[i]));
      return { fn: 'permute', args: ix(0), params: (p || [0, 1, 2, 3]).map(BigInt) };
    }
    case 'TRANSPOSE': return n === 1 ? { fn: 'transpose', args: ix(0), params: [] } : null;
    case 'CPY': return n === 2 ? { fn: 'cpy', args: ix(0, 1), params: [] } : null;
    case 'SET_ROWS': return n === 3 ? { fn: 'set_rows', args: ix(2, 0, 1), params: [] } : null;
    case 'TOP_K': return n === 1 ? { fn: 'top_k', args: ix(0), params: [self.ne[0]] } : null;
    case 'CONT': {
      if (n !== 1) return null;
      if (eq(self.ne, a.ne)) return { fn: 'cont', args: ix(0), params: [] };
      const k = ndims(self.ne);
      return { fn: `cont_${k}d`, args: ix(0), params: self.ne.slice(0, k) };
    }
    default: {
      const fn = t.op.toLowerCase();
      const rule = FUNCS[fn];
      if (!rule || rule.op !== t.op || rule.slots || (rule.pmin ?? 0) > 0 || n < rule.min || n > rule.max) return null;
      return { fn, args: ix(...s.keys()), params: [] };
    }
  }
}

function viewIdiom(self, a) {
  const offs = self.viewOffs - (a.viewSrc >= 0 ? a.viewOffs : 0n);
  if (offs < 0n) return null;
  const ts = BigInt((typeTraits(self.type) || [1, 1])[1]);
  const ne = self.ne;
  const nb = self.nb;
  const k = ndims(ne);
  const args = [a.index];
  if (k === 1 && eq(nb, contiguousNb(self.type, ne))) return { fn: 'view_1d', args, params: [ne[0], offs] };
  if (k <= 2 && nb[0] === ts && nb[2] === nb[1] * ne[1] && nb[3] === nb[2]) {
    return { fn: 'view_2d', args, params: [ne[0], ne[1], nb[1], offs] };
  }
  if (k <= 3 && nb[0] === ts && nb[3] === nb[2] * ne[2]) {
    return { fn: 'view_3d', args, params: [ne[0], ne[1], ne[2], nb[1], nb[2], offs] };
  }
  return { fn: 'view_4d', args, params: [ne[0], ne[1], ne[2], ne[3], nb[1], nb[2], nb[3], offs] };
}
