// op-rules.js: what each ggml call of the text language builds.
//
// FUNCS maps a call name (ggml function name without the ggml_ prefix) to the
// op it records, how its tensor arguments fill the source slots, and how ggml
// computes the result's type, shape, strides and view source. RAW gives the
// same for an op written by its printed name (`MUL_MAT(a, b)`), from the
// sources in slot order. Shape checks follow ggml's asserts and throw
// ShapeError with a message for the editor.

import { contiguousNb, typeTraits } from './ggml-types.js';
import { GLU_OPS, UNARY_OPS } from './ggml-tables.js';

/** an error in the shapes or arguments of a call; the parser adds the line */
export class ShapeError extends Error {}

/**
 * @typedef {object} Src   a source tensor as the rules see it
 * @property {number} index
 * @property {string} name
 * @property {string} type
 * @property {bigint[]} ne  4 dimensions
 * @property {bigint[]} nb  4 strides in bytes
 * @property {number} viewSrc  root tensor index, -1 when not a view
 * @property {bigint} viewOffs
 *
 * @typedef {object} Result what a call makes
 * @property {string} type
 * @property {bigint[]} ne
 * @property {bigint[]} [nb]   absent: contiguous
 * @property {{of: Src, offs: bigint}} [view]  a view of `of` at `offs` bytes past `of`'s own start
 */

const fail = (msg) => { throw new ShapeError(msg); };
const dims = (ne) => `[${ne.join(', ')}]`;
const nelements = (ne) => ne[0] * ne[1] * ne[2] * ne[3];
const tsize = (type) => BigInt((typeTraits(type) || [1, 1])[1]);
const isContiguous = (s) => contiguousNb(s.type, s.ne).every((v, i) => s.ne[i] === 1n || v === s.nb[i]);
const toBig = (p, what) => {
  if (typeof p !== 'bigint') fail(`${what} must be a whole number, got ${p}`);
  return p;
};

/** result with a's type and shape */
const likeA = (t) => ({ type: t[0].type, ne: t[0].ne.slice() });

/** b can be broadcast (repeated) into a: ggml_can_repeat(b, a) */
function checkRepeat(fn, a, b) {
  for (let i = 0; i < 4; i++) {
    if (b.ne[i] === 0n || a.ne[i] % b.ne[i] !== 0n) {
      fail(`${fn}: ${b.name} ${dims(b.ne)} does not broadcast into ${a.name} ${dims(a.ne)} (dim ${i}: ${a.ne[i]} % ${b.ne[i]} != 0)`);
    }
  }
}

const binary = (op) => ({ op, min: 2, max: 2, pmax: 0, check: (t) => checkRepeat(op.toLowerCase(), t[0], t[1]), infer: likeA });
const unary = (op, pmax = 8) => ({ op, min: 1, max: 1, pmax, infer: likeA });

function mulMat(t) {
  const [a, b] = t;
  if (a.ne[0] !== b.ne[0]) fail(`mul_mat: ${a.name} has ne0=${a.ne[0]} but ${b.name} has ne0=${b.ne[0]}; they must match`);
  if (b.ne[2] % a.ne[2] !== 0n || b.ne[3] % a.ne[3] !== 0n) {
    fail(`mul_mat: ${a.name} ${dims(a.ne)} cannot be broadcast over ${b.name} ${dims(b.ne)} in dims 2, 3`);
  }
}

function viewOf(a, type, ne, nb, offs) {
  const bytesNeeded = (() => {
    for (const v of ne) if (v <= 0n) return 0n;
    let n = tsize(type);
    const [blck] = typeTraits(type) || [1];
    if (blck !== 1) n = ne[0] * nb[0] / BigInt(blck);
    for (let i = blck === 1 ? 0 : 1; i < 4; i++) n += (ne[i] - 1n) * nb[i];
    return n;
  })();
  const srcBytes = (() => {
    for (const v of a.ne) if (v <= 0n) return 0n;
    let n = tsize(a.type);
    for (let i = 0; i < 4; i++) n += (a.ne[i] - 1n) * a.nb[i];
    return n;
  })();
  if (bytesNeeded > 0n && offs + bytesNeeded > srcBytes) {
    fail(`view of ${a.name} out of bounds: ${bytesNeeded} bytes at +${offs} in a ${srcBytes}-byte tensor`);
  }
  return { type, ne, nb, view: { of: a, offs } };
}

function reshape(t, ne) {
  const a = t[0];
  if (nelements(a.ne) !== nelements(ne)) {
    fail(`reshape: ${a.name} has ${nelements(a.ne)} elements, ${dims(ne)} has ${nelements(ne)}`);
  }
  if (!isContiguous(a)) fail(`reshape: ${a.name} is not contiguous (use cont first)`);
  return { type: a.type, ne, view: { of: a, offs: 0n } };
}

function shapeParams(p, n, fn) {
  const ne = [1n, 1n, 1n, 1n];
  for (let i = 0; i < n; i++) {
    ne[i] = toBig(p[i], `${fn}: ne${i}`);
    if (ne[i] < 0n) fail(`${fn}: ne${i} must not be negative`);
  }
  return ne;
}

function permuteResult(a, axes, op) {
  const seen = new Set(axes.map(Number));
  if (seen.size !== 4 || [...seen].some((x) => x < 0 || x > 3)) fail(`${op}: axes must be a permutation of 0, 1, 2, 3`);
  const ne = [0n, 0n, 0n, 0n];
  const nb = [0n, 0n, 0n, 0n];
  axes.forEach((ax, i) => { ne[Number(ax)] = a.ne[i]; nb[Number(ax)] = a.nb[i]; });
  return { type: a.type, ne, nb, view: { of: a, offs: 0n } };
}

const views = {
  view_1d: { n: 1, infer: (a, p) => {
    const ne = shapeParams(p, 1, 'view_1d');
    return viewOf(a, a.type, ne, contiguousNb(a.type, ne), toBig(p[1], 'view_1d: offset'));
  } },
  view_2d: { n: 2, infer: (a, p) => {
    const ne = shapeParams(p, 2, 'view_2d');
    const nb1 = toBig(p[2], 'view_2d: nb1');
    const nb = [tsize(a.type), nb1, nb1 * ne[1], nb1 * ne[1]];
    return viewOf(a, a.type, ne, nb, toBig(p[3], 'view_2d: offset'));
  } },
  view_3d: { n: 3, infer: (a, p) => {
    const ne = shapeParams(p, 3, 'view_3d');
    const nb1 = toBig(p[3], 'view_3d: nb1');
    const nb2 = toBig(p[4], 'view_3d: nb2');
    return viewOf(a, a.type, ne, [tsize(a.type), nb1, nb2, nb2 * ne[2]], toBig(p[5], 'view_3d: offset'));
  } },
  view_4d: { n: 4, infer: (a, p) => {
    const ne = shapeParams(p, 4, 'view_4d');
    const nb = [tsize(a.type), toBig(p[4], 'view_4d: nb1'), toBig(p[5], 'view_4d: nb2'), toBig(p[6], 'view_4d: nb3')];
    return viewOf(a, a.type, ne, nb, toBig(p[7], 'view_4d: offset'));
  } },
};

/** creation calls: first argument a type, then 1 to 4 dimensions */
const create = (flags, external) => ({ op: 'NONE', create: true, flags, external });

/**
 * Call name -> rule. `min`/`max`: tensor arguments; `pmin`/`pmax`: numeric
 * parameters after them; `slots(t)`: tensor arguments to source slots
 * (default: in order); `infer(t, p)`: the result from the tensor arguments
 * in call order and the parameters (BigInt when whole, else Number).
 * @type {Record<string, any>}
 */
export const FUNCS = {
  // tensors made by the context, not by an op
  input: create(['input'], false),
  leaf: create([], false),
  new_tensor: create([], false),
  new_tensor_1d: create([], false),
  new_tensor_2d: create([], false),
  new_tensor_3d: create([], false),
  new_tensor_4d: create([], false),
  weight: create([], true),
  param: create(['param'], false),

  // element-wise, broadcasting b into a
  add: binary('ADD'), sub: binary('SUB'), mul: binary('MUL'), div: binary('DIV'),
  add1: { op: 'ADD1', min: 2, max: 2, pmax: 0, infer: likeA },
  add_id: { op: 'ADD_ID', min: 3, max: 3, pmax: 0, infer: likeA },
  acc: { op: 'ACC', min: 2, max: 2, pmax: 5, infer: likeA },
  set: { op: 'SET', min: 2, max: 2, pmax: 5, infer: likeA },
  silu_back: { op: 'SILU_BACK', min: 2, max: 2, pmax: 0, infer: likeA },
  rms_norm_back: { op: 'RMS_NORM_BACK', min: 2, max: 2, pmax: 1, infer: likeA },
  soft_max_back: { op: 'SOFT_MAX_BACK', min: 2, max: 2, pmax: 2, infer: likeA },
  add_rel_pos: { op: 'ADD_REL_POS', min: 3, max: 3, pmax: 0, infer: likeA },

  // element-wise, one source (trailing numbers are op parameters: ignored for memory)
  dup: unary('DUP'), sqr: unary('SQR'), sqrt: unary('SQRT'), log: unary('LOG'), sin: unary('SIN'),
  cos: unary('COS'), scale: unary('SCALE'), clamp: unary('CLAMP'), cont: unary('CONT'),
  norm: unary('NORM'), rms_norm: unary('RMS_NORM'), group_norm: unary('GROUP_NORM'), l2_norm: unary('L2_NORM'),
  diag_mask_inf: unary('DIAG_MASK_INF'), diag_mask_zero: unary('DIAG_MASK_ZERO'), leaky_relu: unary('LEAKY_RELU'),
  fill: unary('FILL'), cumsum: unary('CUMSUM'), tri: unary('TRI'), roll: unary('ROLL'),
  soft_max: unary('SOFT_MAX'),
  opt_step_adamw: { op: 'OPT_STEP_ADAMW', min: 1, max: 5, pmax: 0, infer: likeA },
  opt_step_sgd: { op: 'OPT_STEP_SGD', min: 1, max: 3, pmax: 0, infer: likeA },
  argsort: { op: 'ARGSORT', min: 1, max: 1, pmax: 1, infer: (t) => ({ type: 'i32', ne: t[0].ne.slice() }) },
  top_k: { op: 'TOP_K', min: 1, max: 1, pmin: 1, pmax: 1, infer: (t, p) => {
    const k = toBig(p[0], 'top_k: k');
    if (k > t[0].ne[0]) fail(`top_k: k=${k} is larger than ${t[0].name}'s ne0=${t[0].ne[0]}`);
    return { type: 'i32', ne: [k, t[0].ne[1], t[0].ne[2], t[0].ne[3]] };
  } },
  diag: { op: 'DIAG', min: 1, max: 1, pmax: 0, infer: (t) => ({ type: t[0].type, ne: [t[0].ne[0], t[0].ne[0], t[0].ne[2], t[0].ne[3]] }) },
  soft_max_ext: { op: 'SOFT_MAX', min: 1, max: 3, pmax: 2, infer: likeA },
  rope: { op: 'ROPE', min: 2, max: 3, pmax: 12, infer: likeA },
  rope_ext: { op: 'ROPE', min: 2, max: 3, pmax: 12, infer: likeA },
  rope_multi: { op: 'ROPE', min: 2, max: 3, pmax: 14, infer: likeA },
  rope_back: { op: 'ROPE_BACK', min: 2, max: 3, pmax: 12, infer: likeA },

  // reductions
  sum: { op: 'SUM', min: 1, max: 1, pmax: 0, infer: (t) => ({ type: t[0].type, ne: [1n, 1n, 1n, 1n] }) },
  sum_rows: { op: 'SUM_ROWS', min: 1, max: 1, pmax: 0, infer: (t) => ({ type: t[0].type, ne: [1n, t[0].ne[1], t[0].ne[2], t[0].ne[3]] }) },
  mean: { op: 'MEAN', min: 1, max: 1, pmax: 0, infer: (t) => ({ type: 'f32', ne: [1n, t[0].ne[1], t[0].ne[2], t[0].ne[3]] }) },
  argmax: { op: 'ARGMAX', min: 1, max: 1, pmax: 0, infer: (t) => ({ type: 'i32', ne: [t[0].ne[1], 1n, 1n, 1n] }) },
  count_equal: { op: 'COUNT_EQUAL', min: 2, max: 2, pmax: 0, infer: () => ({ type: 'i64', ne: [1n, 1n, 1n, 1n] }) },
  cross_entropy_loss: { op: 'CROSS_ENTROPY_LOSS', min: 2, max: 2, pmax: 0, infer: (t) => ({ type: t[0].type, ne: [1n, 1n, 1n, 1n] }) },
  repeat: { op: 'REPEAT', min: 2, max: 2, pmax: 0, check: (t) => checkRepeat('repeat', t[1], t[0]), infer: (t) => ({ type: t[0].type, ne: t[1].ne.slice() }) },
  repeat_back: { op: 'REPEAT_BACK', min: 2, max: 2, pmax: 0, infer: (t) => ({ type: t[0].type, ne: t[1].ne.slice() }) },

  // matrix products
  mul_mat: { op: 'MUL_MAT', min: 2, max: 2, pmax: 0, check: mulMat,
    infer: (t) => ({ type: 'f32', ne: [t[0].ne[1], t[1].ne[1], t[1].ne[2], t[1].ne[3]] }) },
  mul_mat_id: { op: 'MUL_MAT_ID', min: 3, max: 3, pmax: 0,
    infer: (t) => ({ type: 'f32', ne: [t[0].ne[1], t[2].ne[0], t[1].ne[2], 1n] }) },
  out_prod: { op: 'OUT_PROD', min: 2, max: 2, pmax: 0,
    infer: (t) => ({ type: 'f32', ne: [t[0].ne[0], t[1].ne[0], t[1].ne[2], t[1].ne[3]] }) },
  flash_attn_ext: { op: 'FLASH_ATTN_EXT', min: 3, max: 5, pmax: 3,
    infer: (t) => ({ type: 'f32', ne: [t[2].ne[0], t[0].ne[2], t[0].ne[1], t[0].ne[3]] }) },

  // shapes
  concat: { op: 'CONCAT', min: 2, max: 2, pmin: 1, pmax: 1, infer: (t, p) => {
    const d = Number(toBig(p[0], 'concat: dim'));
    if (d < 0 || d > 3) fail('concat: dim must be 0..3');
    const [a, b] = t;
    for (let i = 0; i < 4; i++) {
      if (i !== d && a.ne[i] !== b.ne[i]) fail(`concat: ${a.name} ${dims(a.ne)} and ${b.name} ${dims(b.ne)} differ in dim ${i}`);
    }
    const ne = a.ne.slice();
    ne[d] = a.ne[d] + b.ne[d];
    return { type: a.type, ne };
  } },
  pad: { op: 'PAD', min: 1, max: 1, pmin: 1, pmax: 4, infer: (t, p) => {
    const ne = t[0].ne.map((v, i) => v + (i < p.length ? toBig(p[i], `pad: p${i}`) : 0n));
    return { type: t[0].type, ne };
  } },
  pad_reflect_1d: { op: 'PAD_REFLECT_1D', min: 1, max: 1, pmin: 2, pmax: 2, infer: (t, p) => {
    const ne = t[0].ne.slice();
    ne[0] += toBig(p[0], 'p0') + toBig(p[1], 'p1');
    return { type: t[0].type, ne };
  } },
  upscale_ext: { op: 'UPSCALE', min: 1, max: 1, pmin: 4, pmax: 5, infer: (t, p) => ({ type: t[0].type, ne: shapeParams(p, 4, 'upscale_ext') }) },
  arange: { op: 'ARANGE', min: 0, max: 0, pmin: 3, pmax: 3, infer: (t, p) => {
    const [start, stop, step] = p.map(Number);
    if (!(step !== 0)) fail('arange: step must not be 0');
    return { type: 'f32', ne: [BigInt(Math.max(0, Math.ceil((stop - start) / step))), 1n, 1n, 1n] };
  } },
  timestep_embedding: { op: 'TIMESTEP_EMBEDDING', min: 1, max: 1, pmin: 1, pmax: 2, infer: (t, p) => {
    const d = toBig(p[0], 'timestep_embedding: dim');
    return { type: 'f32', ne: [d + (d % 2n), t[0].ne[0], 1n, 1n] };
  } },
  get_rows: { op: 'GET_ROWS', min: 2, max: 2, pmax: 0, infer: (t) => ({
    type: t[0].type === 'i32' ? 'i32' : 'f32', ne: [t[0].ne[0], t[1].ne[0], t[1].ne[1], t[1].ne[2]] }) },
  cont_1d: { op: 'CONT', min: 1, max: 1, pmin: 1, pmax: 1, infer: (t, p) => contN(t, p, 1) },
  cont_2d: { op: 'CONT', min: 1, max: 1, pmin: 2, pmax: 2, infer: (t, p) => contN(t, p, 2) },
  cont_3d: { op: 'CONT', min: 1, max: 1, pmin: 3, pmax: 3, infer: (t, p) => contN(t, p, 3) },
  cont_4d: { op: 'CONT', min: 1, max: 1, pmin: 4, pmax: 4, infer: (t, p) => contN(t, p, 4) },

  // views: no memory of their own
  reshape: { op: 'RESHAPE', min: 2, max: 2, pmax: 0, slots: (t) => [t[0]], infer: (t) => reshape(t, t[1].ne.slice()) },
  reshape_1d: { op: 'RESHAPE', min: 1, max: 1, pmin: 1, pmax: 1, infer: (t, p) => reshape(t, shapeParams(p, 1, 'reshape_1d')) },
  reshape_2d: { op: 'RESHAPE', min: 1, max: 1, pmin: 2, pmax: 2, infer: (t, p) => reshape(t, shapeParams(p, 2, 'reshape_2d')) },
  reshape_3d: { op: 'RESHAPE', min: 1, max: 1, pmin: 3, pmax: 3, infer: (t, p) => reshape(t, shapeParams(p, 3, 'reshape_3d')) },
  reshape_4d: { op: 'RESHAPE', min: 1, max: 1, pmin: 4, pmax: 4, infer: (t, p) => reshape(t, shapeParams(p, 4, 'reshape_4d')) },
  view_1d: { op: 'VIEW', min: 1, max: 1, pmin: 2, pmax: 2, infer: (t, p) => views.view_1d.infer(t[0], p) },
  view_2d: { op: 'VIEW', min: 1, max: 1, pmin: 4, pmax: 4, infer: (t, p) => views.view_2d.infer(t[0], p) },
  view_3d: { op: 'VIEW', min: 1, max: 1, pmin: 6, pmax: 6, infer: (t, p) => views.view_3d.infer(t[0], p) },
  view_4d: { op: 'VIEW', min: 1, max: 1, pmin: 8, pmax: 8, infer: (t, p) => views.view_4d.infer(t[0], p) },
  view_tensor: { op: 'VIEW', min: 1, max: 1, pmax: 0, infer: (t) => ({ type: t[0].type, ne: t[0].ne.slice(), nb: t[0].nb.slice(), view: { of: t[0], offs: 0n } }) },
  permute: { op: 'PERMUTE', min: 1, max: 1, pmin: 4, pmax: 4, infer: (t, p) => permuteResult(t[0], p.map((x) => toBig(x, 'permute: axis')), 'permute') },
  transpose: { op: 'TRANSPOSE', min: 1, max: 1, pmax: 0, infer: (t) => permuteResult(t[0], [1n, 0n, 2n, 3n], 'transpose') },
  cpy: { op: 'CPY', min: 2, max: 2, pmax: 0, check: (t) => {
    if (nelements(t[0].ne) !== nelements(t[1].ne)) fail(`cpy: ${t[0].name} has ${nelements(t[0].ne)} elements, ${t[1].name} has ${nelements(t[1].ne)}`);
  }, infer: (t) => ({ type: t[1].type, ne: t[1].ne.slice(), nb: t[1].nb.slice(), view: { of: t[1], offs: 0n } }) },
  set_rows: { op: 'SET_ROWS', min: 3, max: 3, pmax: 0, slots: (t) => [t[1], t[2], t[0]], check: (t) => {
    if (t[0].ne[0] !== t[1].ne[0]) fail(`set_rows: ${t[0].name} has ne0=${t[0].ne[0]} but ${t[1].name} has ne0=${t[1].ne[0]}`);
  }, infer: (t) => ({ type: t[0].type, ne: t[0].ne.slice(), nb: t[0].nb.slice(), view: { of: t[0], offs: 0n } }) },
};

function contN(t, p, n) {
  const ne = shapeParams(p, n, `cont_${n}d`);
  if (nelements(ne) !== nelements(t[0].ne)) fail(`cont_${n}d: ${t[0].name} has ${nelements(t[0].ne)} elements, ${dims(ne)} has ${nelements(ne)}`);
  return { type: t[0].type, ne };
}

/** unary ops (op UNARY) and gated linear units (op GLU) */
export const UNARY_NAMES = ['unary', ...UNARY_OPS.map((n) => n.toLowerCase())];
export const GLU_NAMES = ['glu', ...GLU_OPS.map((n) => n.toLowerCase())];

// each named one records which unary op / GLU it is (ggml's name: silu -> SILU), as documents keep it
// in "unary_op" / "glu_op"; the bare unary() and glu() leave it open
for (const n of UNARY_NAMES) FUNCS[n] = { ...unary('UNARY'), sub: n === 'unary' ? null : n.toUpperCase() };
for (const n of GLU_NAMES) {
  const sub = n === 'glu' ? null : n.toUpperCase();
  FUNCS[n] = { op: 'GLU', min: 1, max: 2, pmax: 2, infer: glu, sub };
  if (n !== 'glu') FUNCS[`${n}_split`] = { op: 'GLU', min: 2, max: 2, pmax: 2, infer: glu, sub };
}

/** the document field that names a tensor's sub-op, for the ops that have one */
export const SUB_OP_KEY = { UNARY: 'unary_op', GLU: 'glu_op' };

/**
 * What a tensor without an op is: an input (the INPUT flag, wherever its memory comes from),
 * a weight (memory allocated outside the allocator, no INPUT flag) or a leaf.
 * @param {{buffer_type?: number|null, flags?: string[]}} t
 * @returns {'weight'|'input'|'leaf'}
 */
export function leafKind(t) {
  if ((t.flags || []).includes('input')) return 'input';
  return isExternal(t) ? 'weight' : 'leaf';
}

/**
 * Whether a tensor's memory is allocated outside the graph allocator (`extern`, a weight).
 * @param {{buffer_type?: number|null}} t
 * @returns {boolean}
 */
export function isExternal(t) {
  return t.buffer_type !== undefined && t.buffer_type !== null;
}

/**
 * The op as ggml_op_desc() names it: the unary op or GLU when the document says which, else the op.
 * @param {{op: string, unary_op?: string, glu_op?: string}} t
 * @returns {string}
 */
export function opDesc(t) {
  const key = SUB_OP_KEY[t.op];
  return (key && typeof t[key] === 'string' && t[key]) || t.op;
}

function glu(t) {
  const a = t[0];
  if (t.length > 1 && t[1]) {
    for (let i = 0; i < 4; i++) if (a.ne[i] !== t[1].ne[i]) fail(`glu: ${a.name} ${dims(a.ne)} and ${t[1].name} ${dims(t[1].ne)} must have the same shape`);
    return likeA(t);
  }
  if (a.ne[0] % 2n !== 0n) fail(`glu: ${a.name}'s ne0=${a.ne[0]} must be even (it is split in halves)`);
  return { type: a.type, ne: [a.ne[0] / 2n, a.ne[1], a.ne[2], a.ne[3]] };
}

/**
 * Shape of an op written by its printed name, from its sources in slot
 * order (holes are null). Null when the op's shape is not given by its
 * sources alone: the caller then takes the first source's, or needs ne=.
 * @param {string} op
 * @param {(Src|null)[]} s
 * @returns {Result|null}
 */
export function rawResult(op, s) {
  const a = s[0];
  const b = s[1];
  const has = (...ix) => ix.every((i) => s[i]);
  switch (op) {
    case 'MUL_MAT': return has(0, 1) ? FUNCS.mul_mat.infer([a, b]) : null;
    case 'MUL_MAT_ID': return has(0, 1, 2) ? FUNCS.mul_mat_id.infer([a, b, s[2]]) : null;
    case 'OUT_PROD': return has(0, 1) ? FUNCS.out_prod.infer([a, b]) : null;
    case 'FLASH_ATTN_EXT': return has(0, 1, 2) ? FUNCS.flash_attn_ext.infer(s) : null;
    case 'SUM': case 'SUM_ROWS': case 'MEAN': case 'ARGMAX': case 'ARGSORT': case 'DIAG':
      return a ? FUNCS[op.toLowerCase()].infer([a], []) : null;
    case 'COUNT_EQUAL': return FUNCS.count_equal.infer(s);
    case 'CROSS_ENTROPY_LOSS': return a ? FUNCS.cross_entropy_loss.infer([a]) : null;
    case 'REPEAT': case 'REPEAT_BACK': return has(0, 1) ? { type: a.type, ne: b.ne.slice() } : null;
    case 'GET_ROWS': return has(0, 1) ? FUNCS.get_rows.infer([a, b]) : null;
    case 'GLU': return a ? (b ? likeA([a]) : { type: a.type, ne: [a.ne[0] / 2n, a.ne[1], a.ne[2], a.ne[3]] }) : null;
    case 'VIEW': case 'RESHAPE': case 'PERMUTE':
      return a ? { type: a.type, ne: a.ne.slice(), nb: a.nb.slice(), view: { of: a, offs: 0n } } : null;
    case 'TRANSPOSE': return a ? permuteResult(a, [1n, 0n, 2n, 3n], 'TRANSPOSE') : null;
    case 'CPY': return has(1) ? FUNCS.cpy.infer([a, b]) : null;
    case 'SET_ROWS': return has(2) ? FUNCS.set_rows.infer([s[2]]) : null;
    default: return null;
  }
}
