// galloc-binary.js: decodes the module's binary graph and plan (c/include/galloc-binary.h) into
// the objects JSON.parse makes of the JSON documents: the same keys in the same order, numbers up to
// 2^53 as numbers, larger ones as decimal strings (as the JSON writer quotes them).
//
// The binary crosses for speed only (a 300,000-tensor graph and plan are 65 MB of JSON); the
// documents a user saves are the JSON writers' text (GallocDocument.graphText / planText).

export const BINARY_MAGIC = 0x4e424c47; // "GLBN"
export const BINARY_VERSION = 1;
export const BINARY_GRAPH = 1;
export const BINARY_PLAN = 2;
const HEADER_WORDS = 10;
const FLAG_BITS = 8; // head bits 16-23: at most 8 flag names can be used
const NULL_INDEX = 0xffffffff;
const TWO_32 = 4294967296;
const EXACT_HI = 0x200000; // 2^53 / 2^32

const fatalDecoder = new TextDecoder('utf-8', { fatal: true });

/**
 * An unsigned 64-bit value from its two words: a number up to 2^53, a decimal string above.
 * @param {number} lo
 * @param {number} hi
 * @returns {number|string}
 */
export function u64Value(lo, hi) {
  if (hi < EXACT_HI || (hi === EXACT_HI && lo === 0)) return hi * TWO_32 + lo;
  return ((BigInt(hi) << 32n) | BigInt(lo)).toString();
}

/**
 * A signed 64-bit value from its two words (two's complement): a number when its magnitude is at
 * most 2^53, else a decimal string.
 * @param {number} lo
 * @param {number} hi
 * @returns {number|string}
 */
export function i64Value(lo, hi) {
  const h = hi | 0;
  if (h >= 0) return u64Value(lo, hi);
  if (h >= -EXACT_HI) return h * TWO_32 + lo;
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo)).toString();
}

// the body being read (module state: plain functions over it are what V8 inlines best, and a
// 300,000-tensor graph is about 6 million words)
let W = new Uint32Array(0);
let AT = 0;
let END = 0;
let S = /** @type {string[]} */ ([]);

function word() {
  if (AT >= END) throw new RangeError('binary document: the body ends early');
  return W[AT++];
}

function u64() { const lo = word(); return u64Value(lo, word()); }

function i64() { const lo = word(); return i64Value(lo, word()); }

function i32() { return word() | 0; }

/** an index or null */
function index() { const v = word(); return v === NULL_INDEX ? null : v; }

/** an optional u64: null or the value */
function optU64() { return word() === 0 ? null : u64(); }

function str() {
  const k = word();
  if (k >= S.length) throw new RangeError(`binary document: string ${k} of ${S.length}`);
  return S[k];
}

/** the body read to its end: nothing may be left */
function done(what) {
  if (AT !== END) throw new RangeError(`binary document: ${END - AT} words after the ${what}`);
}

/**
 * read(), with the body of bytes open (the module state let go after, also when it throws)
 * @template T
 * @param {Uint8Array} bytes
 * @param {number} kind
 * @param {() => T} read
 * @returns {T}
 */
function decode(bytes, kind, read) {
  try {
    open(bytes, kind);
    return read();
  } finally {
    W = new Uint32Array(0);
    S = [];
    AT = END = 0;
  }
}

/**
 * The header checked, the strings decoded: the body ready to read (W, AT, END, S).
 * @param {Uint8Array} bytes the blob (its byteOffset a multiple of 4)
 * @param {number} kind BINARY_GRAPH or BINARY_PLAN
 */
function open(bytes, kind) {
  if (bytes.byteOffset % 4 !== 0 || bytes.length % 4 !== 0 || bytes.length < 4 * HEADER_WORDS) {
    throw new RangeError('binary document: not whole words');
  }
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const [magic, version, k, nStrings, endsAt, textAt, textBytes, bodyAt, bodyWords, total] = words.subarray(0, HEADER_WORDS);
  if (magic !== BINARY_MAGIC || version !== BINARY_VERSION || k !== kind || total !== bytes.length ||
      endsAt + nStrings > words.length || textAt + textBytes > bytes.length || bodyAt + bodyWords !== words.length) {
    throw new RangeError('binary document: a bad header');
  }
  // the text once (fatal: the module hands over valid UTF-8 only), then each string a slice of it
  const text = fatalDecoder.decode(bytes.subarray(textAt, textAt + textBytes));
  const ends = words.subarray(endsAt, endsAt + nStrings);
  if (nStrings > 0 && ends[nStrings - 1] !== text.length) throw new RangeError('binary document: the strings do not add up');
  const strings = [];
  let from = 0;
  for (let i = 0; i < nStrings; i++) {
    const to = ends[i];
    strings.push(text.slice(from, to));
    from = to;
  }
  W = words;
  AT = bodyAt;
  END = bodyAt + bodyWords;
  S = strings;
}

/**
 * A graph document from galloc_binary_write_graph's bytes: what JSON.parse gives for
 * galloc_document_write_graph's text.
 * @param {Uint8Array} bytes
 * @returns {object}
 */
export function decodeGraph(bytes) {
  return decode(bytes, BINARY_GRAPH, readGraph);
}

function readGraph() {
  const doc = { format: 'galloc-graph', version: 1, name: str() };
  const flagNames = [];
  const nFlags = word();
  if (nFlags > FLAG_BITS) throw new RangeError(`binary document: ${nFlags} flag names for ${FLAG_BITS} flag bits`);
  for (let f = 0; f < nFlags; f++) flagNames.push(str());
  const nBufferTypes = word();
  const bufferTypes = [];
  for (let b = 0; b < nBufferTypes; b++) {
    const name = str();
    const alignment = u64();
    bufferTypes.push({ name, alignment, max_size: optU64() });
  }
  doc.buffer_types = bufferTypes;
  const nTraits = word();
  if (nTraits > 0) {
    const traits = [];
    for (let k = 0; k < nTraits; k++) {
      const name = str();
      const blck = i64();
      traits.push({ name, blck_size: blck, type_size: u64() });
    }
    doc.type_traits = traits;
  }
  const nTensors = word();
  const tensors = []; // pushed: new Array(n) of a large n is a slow dictionary in V8
  for (let i = 0; i < nTensors; i++) tensors.push(graphTensor(flagNames, nBufferTypes));
  doc.tensors = tensors;
  doc.nodes = indexList(word());
  doc.leafs = indexList(word());
  if (word() !== 0) doc.node_buffer_ids = indexList(doc.nodes.length);
  if (word() !== 0) doc.leaf_buffer_ids = indexList(doc.leafs.length);
  done('graph');
  return doc;
}

/**
 * @param {number} n
 * @returns {number[]}
 */
function indexList(n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(i32());
  return out;
}

/**
 * one tensor of a graph (head word bits: galloc-binary.h)
 * @param {string[]} flagNames
 * @param {number} nBufferTypes
 */
function graphTensor(flagNames, nBufferTypes) {
  const head = word();
  const t = { name: str(), op: str() };
  if (head & 0x80) t[head & 0x100 ? 'glu_op' : 'unary_op'] = str();
  t.type = str();
  const nDims = head & 7;
  // array literals: packed, allocated at their size (most tensors have 1 to 4 dims, 1 to 3 sources)
  if (nDims === 1) t.ne = [i64()];
  else if (nDims === 2) t.ne = [i64(), i64()];
  else if (nDims === 3) t.ne = [i64(), i64(), i64()];
  else if (nDims === 4) t.ne = [i64(), i64(), i64(), i64()];
  else throw new RangeError(`binary document: a tensor of ${nDims} dimensions`);
  if (head & 0x200) t.nb = [u64(), u64(), u64(), u64()];
  const nSrc = (head >> 3) & 15;
  if (nSrc === 1) t.src = [index()];
  else if (nSrc === 2) t.src = [index(), index()];
  else if (nSrc === 3) t.src = [index(), index(), index()];
  else if (nSrc > 3) {
    const src = [];
    for (let s = 0; s < nSrc; s++) src.push(index());
    t.src = src;
  }
  if (head & 0x400) {
    t.view_src = word();
    t.view_offs = u64();
  }
  const flags = (head >>> 16) & 0xff;
  if (flags !== 0) {
    if (flags >>> flagNames.length !== 0) throw new RangeError(`binary document: flag bits 0x${flags.toString(16)} of ${flagNames.length} flag names`);
    const names = [];
    for (let b = 0; b < flagNames.length; b++) if (flags & (1 << b)) names.push(flagNames[b]);
    t.flags = names;
  }
  const alloc = (head >> 11) & 3;
  if (alloc === 2) {
    const sizes = [];
    for (let b = 0; b < nBufferTypes; b++) sizes.push(optU64());
    t.alloc_sizes = sizes;
  } else if (alloc === 1) {
    t.alloc_size = u64();
  }
  const buffer = (head >> 13) & 3;
  if (buffer === 1) t.buffer_type = word();
  else if (buffer === 2) t.external = true;
  return t;
}

/**
 * A plan document from galloc_binary_write_plan's bytes: what JSON.parse gives for
 * galloc_document_write_plan's text.
 * @param {Uint8Array} bytes
 * @returns {object}
 */
export function decodePlan(bytes) {
  return decode(bytes, BINARY_PLAN, readPlan);
}

function readPlan() {
  const name = str();
  const nSteps = i32();
  const plan = { format: 'galloc-plan', version: 1, name, n_steps: nSteps, n_inplace: i32() };
  const nBuffers = word();
  const buffers = [];
  for (let b = 0; b < nBuffers; b++) {
    const bufferType = word();
    const bname = str();
    const alignment = u64();
    const maxSize = optU64();
    const nChunks = word();
    const chunkSizes = [];
    for (let c = 0; c < nChunks; c++) chunkSizes.push(u64());
    const size = u64();
    const peakLive = u64();
    const overhead = u64();
    buffers.push({ buffer_type: bufferType, name: bname, alignment, max_size: maxSize, chunk_sizes: chunkSizes, size,
      peak_live: peakLive, overhead, shared_with: index() });
  }
  plan.buffers = buffers;
  const nTensors = word();
  const tensors = [];
  for (let i = 0; i < nTensors; i++) {
    const head = word();
    if (head === 0) { tensors.push(null); continue; }
    const buffer = word();
    const chunk = word();
    const offset = u64();
    const size = u64();
    const how = str();
    // whole literals, one shape each (the JSON writer's keys in its order)
    if (head === 1) tensors.push({ buffer, chunk, offset, size, how, first: i32(), last: i32() });
    else if (head === 3) tensors.push({ buffer, chunk, offset, size, view: true, how, first: i32(), last: i32() });
    else if (head === 5) tensors.push({ buffer, chunk, offset, size, how, parent: word(), first: i32(), last: i32() });
    else if (head === 7) tensors.push({ buffer, chunk, offset, size, view: true, how, parent: word(), first: i32(), last: i32() });
    else throw new RangeError(`binary document: tensors[${i}]: head ${head}`);
  }
  plan.tensors = tensors;
  done('plan');
  return plan;
}
