// ggml-types.js: the parts of ggml's type and op tables the visualizer needs.
//
// Type sizes and block sizes (as ggml_type_size / ggml_blck_size), byte sizes
// of tensors (ggml_nbytes) and contiguous strides, the op names ggml prints,
// and which ops run in place or make views. Sizes are BigInt inside, so
// tensors near SIZE_MAX stay exact; documents may carry them as strings.

/** @type {Record<string, [number, number]>} type name -> [block size, bytes per block] */
export const TYPES = {
  f32: [1, 4], f16: [1, 2], q4_0: [32, 18], q4_1: [32, 20], q5_0: [32, 22], q5_1: [32, 24],
  q8_0: [32, 34], q8_1: [32, 36], q2_K: [256, 84], q3_K: [256, 110], q4_K: [256, 144],
  q5_K: [256, 176], q6_K: [256, 210], q8_K: [256, 292], iq2_xxs: [256, 66], iq2_xs: [256, 74],
  iq3_xxs: [256, 98], iq1_s: [256, 50], iq4_nl: [32, 18], iq3_s: [256, 110], iq2_s: [256, 82],
  iq4_xs: [256, 136], i8: [1, 1], i16: [1, 2], i32: [1, 4], i64: [1, 8], f64: [1, 8],
  iq1_m: [256, 56], bf16: [1, 2], tq1_0: [256, 54], tq2_0: [256, 66], mxfp4: [32, 17],
};

/** every op name as ggml_op_name() prints it, in enum order */
export const OPS = [
  'NONE', 'DUP', 'ADD', 'ADD_ID', 'ADD1', 'ACC', 'SUB', 'MUL', 'DIV', 'SQR', 'SQRT', 'LOG', 'SIN', 'COS',
  'SUM', 'SUM_ROWS', 'CUMSUM', 'MEAN', 'ARGMAX', 'COUNT_EQUAL', 'REPEAT', 'REPEAT_BACK', 'CONCAT',
  'SILU_BACK', 'NORM', 'RMS_NORM', 'RMS_NORM_BACK', 'GROUP_NORM', 'L2_NORM', 'MUL_MAT', 'MUL_MAT_ID',
  'OUT_PROD', 'SCALE', 'SET', 'CPY', 'CONT', 'RESHAPE', 'VIEW', 'PERMUTE', 'TRANSPOSE', 'GET_ROWS',
  'GET_ROWS_BACK', 'SET_ROWS', 'DIAG', 'DIAG_MASK_INF', 'DIAG_MASK_ZERO', 'SOFT_MAX', 'SOFT_MAX_BACK',
  'ROPE', 'ROPE_BACK', 'CLAMP', 'CONV_TRANSPOSE_1D', 'IM2COL', 'IM2COL_BACK', 'IM2COL_3D', 'CONV_2D',
  'CONV_3D', 'CONV_2D_DW', 'CONV_TRANSPOSE_2D', 'POOL_1D', 'POOL_2D', 'POOL_2D_BACK', 'UPSCALE', 'PAD',
  'PAD_REFLECT_1D', 'ROLL', 'ARANGE', 'TIMESTEP_EMBEDDING', 'ARGSORT', 'TOP_K', 'LEAKY_RELU', 'TRI',
  'FILL', 'FLASH_ATTN_EXT', 'FLASH_ATTN_BACK', 'SSM_CONV', 'SSM_SCAN', 'WIN_PART', 'WIN_UNPART',
  'GET_REL_POS', 'ADD_REL_POS', 'RWKV_WKV6', 'GATED_LINEAR_ATTN', 'RWKV_WKV7', 'SOLVE_TRI', 'UNARY',
  'MAP_CUSTOM1', 'MAP_CUSTOM2', 'MAP_CUSTOM3', 'CUSTOM', 'CROSS_ENTROPY_LOSS', 'CROSS_ENTROPY_LOSS_BACK',
  'OPT_STEP_ADAMW', 'OPT_STEP_SGD', 'GLU',
];

const OP_SET = new Set(OPS);

/** ops that may take over a parent's memory (ggml_op_can_inplace) */
export const INPLACE_OPS = new Set([
  'FILL', 'SCALE', 'DIAG_MASK_ZERO', 'DIAG_MASK_INF', 'ADD', 'ADD_ID', 'ADD1', 'SUB', 'MUL', 'DIV',
  'SQR', 'SQRT', 'LOG', 'UNARY', 'ROPE', 'ROPE_BACK', 'SILU_BACK', 'RMS_NORM', 'RMS_NORM_BACK',
  'SOFT_MAX', 'SOFT_MAX_BACK',
]);

/** tensor flags in document spelling */
export const FLAGS = ['input', 'output', 'param', 'loss', 'compute'];

/** @param {string} op @returns {boolean} */
export function isOp(op) { return OP_SET.has(op); }

/** @param {string} type @returns {boolean} */
export function isType(type) { return Object.hasOwn(TYPES, type); }

/**
 * A document number (number or decimal string) as BigInt.
 * @param {number|string|bigint} v
 * @returns {bigint}
 */
export function big(v) {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  return BigInt(v);
}

/**
 * A BigInt back in document form: a number when exact, else a decimal string.
 * @param {bigint} b
 * @returns {number|string}
 */
export function docNum(b) {
  const n = Number(b);
  return Number.isSafeInteger(n) ? n : b.toString();
}

/**
 * ne padded to 4 dimensions, as BigInt.
 * @param {Array<number|string>} ne
 * @returns {bigint[]}
 */
export function ne4(ne) {
  const out = [1n, 1n, 1n, 1n];
  (ne || []).forEach((v, i) => { if (i < 4) out[i] = big(v); });
  return out;
}

/**
 * Contiguous strides for a type and shape (nb[0] = type size, nb[1] = row size, ...).
 * @param {string} type
 * @param {bigint[]} ne four dimensions
 * @returns {bigint[]}
 */
export function contiguousNb(type, ne) {
  const [blck, size] = TYPES[type] || [1, 1];
  const nb = [BigInt(size), 0n, 0n, 0n];
  nb[1] = nb[0] * (ne[0] / BigInt(blck));
  nb[2] = nb[1] * ne[1];
  nb[3] = nb[2] * ne[2];
  return nb;
}

/**
 * ggml_nbytes for a type, ne and nb (all four dimensions, BigInt).
 * @param {string} type
 * @param {bigint[]} ne
 * @param {bigint[]} nb
 * @returns {bigint}
 */
export function nbytes(type, ne, nb) {
  for (const v of ne) if (v <= 0n) return 0n;
  const [blck, size] = TYPES[type] || [1, 1];
  let bytes;
  if (blck === 1) {
    bytes = BigInt(size);
    for (let i = 0; i < 4; i++) bytes += (ne[i] - 1n) * nb[i];
  } else {
    bytes = ne[0] * nb[0] / BigInt(blck);
    for (let i = 1; i < 4; i++) bytes += (ne[i] - 1n) * nb[i];
  }
  return bytes;
}

/**
 * ne with trailing 1s trimmed (at least one dimension), as the documents write it.
 * @param {bigint[]} ne
 * @returns {bigint[]}
 */
export function trimNe(ne) {
  let n = 4;
  while (n > 1 && ne[n - 1] === 1n) n--;
  return ne.slice(0, n);
}
