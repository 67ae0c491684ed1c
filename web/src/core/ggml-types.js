// ggml-types.js: the parts of ggml's type and op tables the visualizer needs.
//
// Type sizes and block sizes (as ggml_type_size / ggml_blck_size), the op
// names ggml prints and which ops run in place, from the C tables (through
// the generated ggml-tables.js); byte sizes of tensors (ggml_nbytes) and
// contiguous strides. Sizes are BigInt inside, so
// tensors near SIZE_MAX stay exact; documents may carry them as strings.

// the tables themselves come from C (generated: ggml-tables.js, make tables)
import { FLAGS, INPLACE_OP_NAMES, OPS, TYPES } from './ggml-tables.js';

export { FLAGS, OPS, TYPES };

const OP_SET = new Set(OPS);

/** ops that may take over a parent's memory (the planner's galloc_op_can_inplace) */
export const INPLACE_OPS = new Set(INPLACE_OP_NAMES);

/** @param {string} op @returns {boolean} */
export function isOp(op) { return OP_SET.has(op); }

// the types a document describes in "type_traits" (newer than the tables), while that document is
// read, written or measured (withTypes): a name -> [block size, bytes per block] Map, or null
let customTypes = null;

/**
 * Run fn with a document's custom types known (its "type_traits": [{name, blck_size, type_size}]):
 * isType, typeTraits, contiguousNb and nbytes then know them too. The documents come from the C
 * reader (which checked the numbers) or the graph text's @type lines.
 * @template T
 * @param {Array<{name: string, blck_size: number|string, type_size: number|string}>|undefined|null} traits
 * @param {() => T} fn
 * @returns {T}
 */
export function withTypes(traits, fn) {
  if (!traits || !traits.length) return fn();
  const saved = customTypes;
  customTypes = new Map(saved ?? []);
  for (const t of traits) if (!Object.hasOwn(TYPES, t.name)) customTypes.set(t.name, [Number(t.blck_size), Number(t.type_size)]);
  try { return fn(); } finally { customTypes = saved; }
}

/**
 * A type's block size and bytes per block (ggml_blck_size, ggml_type_size), from the tables or
 * the document being handled (withTypes); undefined for an unknown type.
 * @param {string} type
 * @returns {[number, number]|undefined}
 */
export function typeTraits(type) {
  return Object.hasOwn(TYPES, type) ? TYPES[type] : customTypes?.get(type);
}

/** @param {string} type @returns {boolean} a type of the tables, or of the document being handled */
export function isType(type) { return Object.hasOwn(TYPES, type) || customTypes?.has(type) === true; }

/** @param {string} type @returns {boolean} a type ggml's tables know */
export function isTableType(type) { return Object.hasOwn(TYPES, type); }

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
  const [blck, size] = typeTraits(type) || [1, 1];
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
  const [blck, size] = typeTraits(type) || [1, 1];
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
