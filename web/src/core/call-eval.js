// call-eval.js: one call of the text language, evaluated into a tensor.
//
// Shared by the parser (text -> document) and the printer (document ->
// text): the printer evaluates the call it means to write and adds
// modifiers (type=, ne=, nb=, view=, offs=) for whatever still differs, so
// that reading the text back gives the document exactly.

import { FUNCS, SUB_OP_KEY, ShapeError, rawResult } from './op-rules.js';
import { contiguousNb, isOp, isType } from './ggml-types.js';

/**
 * @typedef {import('./op-rules.js').Src} Src
 * @typedef {object} Call
 * @property {string} fn      call name (lowercase ggml name, or an op's printed name)
 * @property {(Src|null)[]} args  tensor arguments in call order (null: `_`)
 * @property {Array<bigint|number>} params numeric arguments after them
 * @property {string} [type]  creation calls: the tensor type
 * @typedef {object} Mods
 * @property {string} [type]
 * @property {bigint[]} [ne]
 * @property {bigint[]} [nb]
 * @property {Src|null} [view]   null: view=none
 * @property {bigint} [offs]
 * @typedef {object} Evaluated
 * @property {string} op
 * @property {string|null} sub  which unary op / GLU a named call computes (ggml's name), null when unsaid
 * @property {string} type
 * @property {bigint[]} ne
 * @property {bigint[]} nb
 * @property {(number|null)[]} src
 * @property {number} viewSrc   -1 when not a view
 * @property {bigint} viewOffs
 */

const UNKNOWN_OP = /^[A-Z][A-Z0-9_]{0,62}$/;
/** the names the C reader keeps for ops the tables lack */
const C_OP_NAME = /^[A-Za-z0-9_]{1,63}$/;

/**
 * The rule for a call name: a FUNCS entry, or {raw: op} for an op name (also one the tables
 * lack, written in capitals as ggml names ops).
 * @param {string} fn
 * @returns {object|null}
 */
export function ruleFor(fn) {
  // a quoted op name ("my_op"(x)): any name the C reader keeps (1 to 63 letters, digits, '_'),
  // for the ops newer than the tables that are not spelled in capitals
  if (fn.startsWith('"')) {
    let quoted = null;
    try { quoted = JSON.parse(fn); } catch { return null; }
    return typeof quoted === 'string' && C_OP_NAME.test(quoted) ? { op: quoted, raw: true, unknown: !isOp(quoted) } : null;
  }
  const name = fn.startsWith('ggml_') ? fn.slice(5) : fn;
  if (Object.hasOwn(FUNCS, name)) return FUNCS[name];
  if (isOp(name)) return { op: name, raw: true };
  // an op newer than the tables (ggml names them in capitals): kept by name, planned as not in place
  if (UNKNOWN_OP.test(name)) return { op: name, raw: true, unknown: true };
  return null;
}

/**
 * Which source slot each tensor argument of a call fills (-1: none).
 * @param {object} rule
 * @param {number} nArgs
 * @returns {number[]}
 */
export function argSlots(rule, nArgs) {
  const ix = Array.from({ length: nArgs }, (_, i) => i);
  if (!rule.slots) return ix;
  const bySlot = rule.slots(ix);
  return ix.map((a) => bySlot.indexOf(a));
}

/**
 * Evaluate a call with its modifiers. Throws ShapeError with a readable message.
 * @param {Call} call
 * @param {Mods} mods
 * @returns {Evaluated}
 */
export function evaluateCall(call, mods = {}) {
  const rule = ruleFor(call.fn);
  if (!rule) throw new ShapeError(`unknown op '${call.fn}'`);
  const { args, params } = call;
  let res;
  let src;
  if (rule.create) {
    if (!call.type || !isType(call.type)) throw new ShapeError(`${call.fn}: first argument must be a type (f32, f16, q4_0, ...), got ${call.type ?? 'nothing'}`);
    if (args.length) throw new ShapeError(`${call.fn}: takes a type and 1 to 4 dimensions, not tensors`);
    if (params.length < 1 || params.length > 4) throw new ShapeError(`${call.fn}: give 1 to 4 dimensions after the type`);
    const ne = [1n, 1n, 1n, 1n];
    params.forEach((p, i) => {
      if (typeof p !== 'bigint' || p < 0n) throw new ShapeError(`${call.fn}: dimension ${i} must be a whole number >= 0, got ${p}`);
      ne[i] = p;
    });
    res = { type: call.type, ne };
    src = [];
  } else if (rule.raw) {
    if (call.type) throw new ShapeError(`${call.fn}: unexpected type argument`);
    src = args.map((a) => (a ? a.index : null));
    res = rawResult(rule.op, args);
    if (!res && args[0]) res = { type: args[0].type, ne: args[0].ne.slice() };
    if (!res) {
      if (!mods.ne) throw new ShapeError(`${call.fn}: give the result's shape with ne=[...] (and type=...)`);
      res = { type: mods.type ?? 'f32', ne: mods.ne };
    }
  } else {
    const name = call.fn.replace(/^ggml_/, '');
    if (call.type) throw new ShapeError(`${name}: unexpected type argument`);
    if (args.some((a) => !a)) throw new ShapeError(`${name}: '_' (an empty source slot) is only allowed in op-name form, e.g. ${rule.op}(a, _, b)`);
    const pmin = rule.pmin ?? 0;
    if (args.length < rule.min || args.length > rule.max) {
      const want = rule.min === rule.max ? `${rule.min}` : `${rule.min} to ${rule.max}`;
      throw new ShapeError(`${name}: takes ${want} tensor argument${rule.max === 1 ? '' : 's'}, got ${args.length}`);
    }
    if (params.length < pmin || params.length > (rule.pmax ?? 0)) {
      const want = pmin === rule.pmax ? `${pmin}` : `${pmin} to ${rule.pmax}`;
      throw new ShapeError(`${name}: takes ${want} number${rule.pmax === 1 ? '' : 's'} after the tensors, got ${params.length}`);
    }
    if (rule.check) rule.check(args, params);
    res = rule.infer(args, params);
    src = (rule.slots ? rule.slots(args) : args).map((a) => a.index);
  }
  const type = mods.type ?? res.type;
  if (!isType(type)) throw new ShapeError(`unknown type '${type}'`);
  const ne = mods.ne ?? res.ne;
  let nb;
  if (mods.nb) nb = mods.nb;
  else if (res.nb && !mods.ne && !mods.type) nb = res.nb;
  else nb = contiguousNb(type, ne);
  let viewSrc = -1;
  let viewOffs = 0n;
  if (res.view) {
    const of = res.view.of;
    viewSrc = of.viewSrc >= 0 ? of.viewSrc : of.index;
    viewOffs = (of.viewSrc >= 0 ? of.viewOffs : 0n) + res.view.offs;
  }
  if (mods.view !== undefined) {
    viewSrc = mods.view ? mods.view.index : -1;
    if (mods.view && !res.view) viewOffs = 0n;
  }
  if (mods.offs !== undefined) {
    if (viewSrc < 0) throw new ShapeError('offs= is only for views (add view=TENSOR)');
    viewOffs = mods.offs;
  }
  if (viewSrc < 0) viewOffs = 0n;
  if (mods.sub !== undefined && !(rule.raw && SUB_OP_KEY[rule.op])) throw new ShapeError(`sub= is only for UNARY(...) and GLU(...)`);
  return { op: rule.op, sub: rule.raw ? mods.sub ?? null : rule.sub ?? null, type, ne, nb, src, viewSrc, viewOffs };
}
