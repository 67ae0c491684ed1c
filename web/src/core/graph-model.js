// graph-model.js: graph documents as data: checking, defaults, indices.
//
// checkGraph reads a document (object or JSON text) and says plainly what is
// wrong with it; normalizeGraph fills the defaults of the format page (one
// host buffer type, nodes/leafs built from `outputs` as
// ggml_build_forward_expand would); tensorInfo and graphIndex derive what the
// views need (strides, byte sizes, roots, consumers, node positions).

import { FLAGS, big, contiguousNb, isType, ne4, nbytes, trimNe } from './ggml-types.js';
import { GLU_NAMES, UNARY_NAMES } from './op-rules.js';

/** the buffer type a document without `buffer_types` gets */
export const DEFAULT_BUFFER_TYPE = Object.freeze({ name: 'host', alignment: 32, max_size: null });

const isIndex = (v) => Number.isInteger(v) && v >= 0;
const isSize = (v) => (typeof v === 'number' && Number.isInteger(v) && v >= 0) || (typeof v === 'string' && /^\d+$/.test(v));

/**
 * Parse and check a graph document. Throws Error with a one-line message
 * naming the field ("tensors[12].src[1]: index 40 out of range").
 * @param {object|string} input a document or its JSON text
 * @returns {object} the document
 */
export function checkGraph(input) {
  let doc = input;
  if (typeof input === 'string') {
    try { doc = JSON.parse(input); } catch (e) { throw new Error(`not JSON: ${e.message}`); }
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) throw new Error('a graph document must be a JSON object');
  if (doc.format !== undefined && doc.format !== 'galloc-graph') {
    throw new Error(doc.format === 'galloc-plan' ? 'this is a plan document; import a graph document (format "galloc-graph")' : `format: expected "galloc-graph", got ${JSON.stringify(doc.format)}`);
  }
  if (doc.version !== undefined && doc.version !== 1) throw new Error(`version: ${doc.version} is not supported (expected 1)`);
  if (!Array.isArray(doc.tensors)) throw new Error('tensors: missing or not a list');
  const n = doc.tensors.length;
  const bts = doc.buffer_types ?? [DEFAULT_BUFFER_TYPE];
  if (!Array.isArray(bts) || bts.length === 0) throw new Error('buffer_types: must be a non-empty list');
  bts.forEach((b, i) => {
    const a = b && b.alignment;
    if (!isIndex(a) || a === 0 || (a & (a - 1)) !== 0) throw new Error(`buffer_types[${i}].alignment: must be a power of two, got ${JSON.stringify(a)}`);
    if (b.max_size !== null && b.max_size !== undefined && !isSize(b.max_size)) throw new Error(`buffer_types[${i}].max_size: must be a byte count or null`);
    if (b.max_size !== null && b.max_size !== undefined && big(b.max_size) === 0n) throw new Error(`buffer_types[${i}].max_size: must not be 0`);
  });
  const ref = (where, v) => {
    if (!isIndex(v) || v >= n) throw new Error(`${where}: index ${JSON.stringify(v)} out of range`);
  };
  doc.tensors.forEach((t, i) => {
    const at = `tensors[${i}]`;
    if (!t || typeof t !== 'object') throw new Error(`${at}: not an object`);
    if (typeof t.name !== 'string') throw new Error(`${at}.name: missing`);
    if (new TextEncoder().encode(t.name).length > 63) throw new Error(`${at}.name: longer than 63 bytes`);
    if (typeof t.op !== 'string') throw new Error(`${at}.op: missing`);
    if (!isType(t.type)) {
      throw new Error(`${at}.type: unknown type ${JSON.stringify(t.type)}${(doc.type_traits || []).some((x) => x && x.name === t.type) ? ' (types newer than the tables plan with the CLI; the web UI cannot edit them yet)' : ''}`);
    }
    if (!Array.isArray(t.ne) || t.ne.length < 1 || t.ne.length > 4 || !t.ne.every(isSize)) throw new Error(`${at}.ne: expected 1 to 4 non-negative numbers`);
    if (t.nb !== undefined && (!Array.isArray(t.nb) || t.nb.length !== 4 || !t.nb.every(isSize))) throw new Error(`${at}.nb: expected 4 byte strides`);
    if (t.src !== undefined) {
      if (!Array.isArray(t.src) || t.src.length > 10) throw new Error(`${at}.src: expected a list of at most 10 indices`);
      t.src.forEach((s, k) => { if (s !== null) ref(`${at}.src[${k}]`, s); });
    }
    if (t.view_src !== undefined && t.view_src !== null) {
      ref(`${at}.view_src`, t.view_src);
      if (t.view_src === i) throw new Error(`${at}.view_src: a tensor cannot view itself`);
    }
    if (t.view_offs !== undefined && !isSize(t.view_offs)) throw new Error(`${at}.view_offs: must be a byte count`);
    if (t.flags !== undefined && (!Array.isArray(t.flags) || !t.flags.every((f) => FLAGS.includes(f)))) throw new Error(`${at}.flags: expected a subset of ${FLAGS.join(', ')}`);
    if (t.alloc_size !== undefined && !isSize(t.alloc_size)) throw new Error(`${at}.alloc_size: must be a byte count`);
    if (t.alloc_sizes !== undefined && (!Array.isArray(t.alloc_sizes) || t.alloc_sizes.length !== bts.length || !t.alloc_sizes.every((v) => v === null || isSize(v)))) {
      throw new Error(`${at}.alloc_sizes: expected one byte count (or null) per buffer type`);
    }
    for (const [op, key, names] of [['UNARY', 'unary_op', UNARY_NAMES], ['GLU', 'glu_op', GLU_NAMES]]) {
      if (t[key] === undefined || t[key] === null) continue;
      if (t.op !== op) throw new Error(`${at}.${key}: only ${op} tensors have one (this one is ${t.op})`);
      // a name the tables lack is kept (the C reader warns about it), if it is spelled like ggml's
      if (typeof t[key] !== 'string' || !(names.slice(1).includes(t[key].toLowerCase()) ? t[key] === t[key].toUpperCase() : /^[A-Za-z0-9_]{1,63}$/.test(t[key]))) {
        throw new Error(`${at}.${key}: unknown ${key} ${JSON.stringify(t[key])}`);
      }
    }
    if (t.external !== undefined && typeof t.external !== 'boolean') throw new Error(`${at}.external: expected true or false`);
    if (t.buffer_type !== undefined && t.buffer_type !== null && (!isIndex(t.buffer_type) || t.buffer_type >= bts.length)) {
      throw new Error(`${at}.buffer_type: ${JSON.stringify(t.buffer_type)} is not a buffer type index`);
    }
  });
  const lists = ['nodes', 'leafs'];
  if ((doc.nodes === undefined) !== (doc.leafs === undefined)) throw new Error('nodes, leafs: give both or neither');
  for (const key of lists) {
    if (doc[key] === undefined) continue;
    if (!Array.isArray(doc[key])) throw new Error(`${key}: not a list`);
    doc[key].forEach((v, k) => ref(`${key}[${k}]`, v));
  }
  if (doc.nodes === undefined) {
    if (!Array.isArray(doc.outputs) || doc.outputs.length === 0) throw new Error('outputs: needed when nodes and leafs are absent');
    doc.outputs.forEach((v, k) => ref(`outputs[${k}]`, v));
  }
  for (const [key, list] of [['node_buffer_ids', 'nodes'], ['leaf_buffer_ids', 'leafs']]) {
    if (doc[key] === undefined) continue;
    if (!Array.isArray(doc[key])) throw new Error(`${key}: not a list`);
    if (doc[list] && doc[key].length !== doc[list].length) throw new Error(`${key}: has ${doc[key].length} entries, ${list} has ${doc[list].length}`);
    doc[key].forEach((v, k) => {
      if (!isIndex(v) || v >= bts.length) throw new Error(`${key}[${k}]: ${JSON.stringify(v)} is not a buffer type index`);
    });
  }
  return doc;
}

/**
 * nodes and leafs as ggml_build_forward_expand builds them from outputs:
 * depth first, sources in slot order first; op NONE without PARAM is a leaf.
 * @param {object[]} tensors
 * @param {number[]} outputs
 * @returns {{nodes: number[], leafs: number[]}}
 */
export function expandOutputs(tensors, outputs) {
  const seen = new Uint8Array(tensors.length);
  const nodes = [];
  const leafs = [];
  for (const out of outputs) {
    const stack = [[out, 0]];
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [t, k] = top;
      if (k === 0 && seen[t]) { stack.pop(); continue; }
      if (k === 0) seen[t] = 1;
      const src = tensors[t].src || [];
      if (k < src.length) {
        top[1] = k + 1;
        const s = src[k];
        if (s !== null && s !== undefined && !seen[s]) stack.push([s, 0]);
        continue;
      }
      stack.pop();
      const x = tensors[t];
      if (x.op === 'NONE' && !(x.flags || []).includes('param')) leafs.push(t); else nodes.push(t);
    }
  }
  return { nodes, leafs };
}

/**
 * A document with every default filled in: format, version, name,
 * buffer_types, nodes and leafs (from outputs if need be; unnamed tensors
 * named leaf_%d / node_%d), node_buffer_ids and leaf_buffer_ids.
 * Does not modify its input.
 * @param {object} doc a checked document
 * @returns {object}
 */
export function normalizeGraph(doc) {
  const tensors = doc.tensors.map((t) => ({ ...t }));
  let { nodes, leafs } = doc;
  if (!nodes) {
    ({ nodes, leafs } = expandOutputs(tensors, doc.outputs));
    leafs.forEach((t, k) => { if (!tensors[t].name) tensors[t].name = `leaf_${k}`; });
    nodes.forEach((t, k) => { if (!tensors[t].name) tensors[t].name = `node_${k}`; });
  }
  return {
    format: 'galloc-graph',
    version: 1,
    name: typeof doc.name === 'string' ? doc.name : 'graph',
    buffer_types: (doc.buffer_types ?? [DEFAULT_BUFFER_TYPE]).map((b, i) => ({
      name: typeof b.name === 'string' ? b.name : `buft${i}`, alignment: b.alignment, max_size: b.max_size ?? null,
    })),
    tensors,
    nodes: nodes.slice(),
    leafs: leafs.slice(),
    node_buffer_ids: doc.node_buffer_ids ? doc.node_buffer_ids.slice() : nodes.map(() => 0),
    leaf_buffer_ids: doc.leaf_buffer_ids ? doc.leaf_buffer_ids.slice() : leafs.map(() => 0),
  };
}

/**
 * Per-tensor numbers derived from a document: four-dimensional ne and nb
 * (BigInt), ggml_nbytes, alloc size, root (view_src or itself), view offset.
 * @param {object} doc
 * @returns {{ne: bigint[][], nb: bigint[][], bytes: bigint[], allocSize: bigint[], root: number[], offs: bigint[]}}
 */
export function tensorInfo(doc) {
  const n = doc.tensors.length;
  const out = { ne: new Array(n), nb: new Array(n), bytes: new Array(n), allocSize: new Array(n), root: new Array(n), offs: new Array(n) };
  doc.tensors.forEach((t, i) => {
    const ne = ne4(t.ne);
    const nb = t.nb ? t.nb.map(big) : contiguousNb(t.type, ne);
    out.ne[i] = ne;
    out.nb[i] = nb;
    out.bytes[i] = nbytes(t.type, ne, nb);
    out.allocSize[i] = t.alloc_size !== undefined ? big(t.alloc_size) : out.bytes[i];
    const isView = t.view_src !== undefined && t.view_src !== null;
    out.root[i] = isView ? t.view_src : i;
    out.offs[i] = isView ? big(t.view_offs ?? 0) : 0n;
  });
  return out;
}

/**
 * Graph structure: who consumes whom, each tensor's node position (its
 * execution step), leaf position, and assigned buffer type.
 * @param {object} doc a normalized document
 * @returns {{consumers: number[][], step: Int32Array, leafPos: Int32Array, assigned: Int32Array}}
 */
export function graphIndex(doc) {
  const n = doc.tensors.length;
  const consumers = Array.from({ length: n }, () => []);
  const step = new Int32Array(n).fill(-1);
  const leafPos = new Int32Array(n).fill(-1);
  const assigned = new Int32Array(n).fill(-1);
  doc.nodes.forEach((t, k) => { if (step[t] < 0) { step[t] = k; assigned[t] = doc.node_buffer_ids?.[k] ?? 0; } });
  doc.leafs.forEach((t, k) => { if (leafPos[t] < 0) { leafPos[t] = k; assigned[t] = doc.leaf_buffer_ids?.[k] ?? 0; } });
  doc.tensors.forEach((t, i) => {
    for (const s of t.src || []) if (s !== null && !consumers[s].includes(i)) consumers[s].push(i);
  });
  return { consumers, step, leafPos, assigned };
}

/**
 * The fields that matter for planning, in one canonical shape, to compare
 * two documents (ne trimmed, nb and ids made explicit, flags sorted).
 * @param {object} doc
 * @returns {object}
 */
export function planningKey(doc) {
  const d = normalizeGraph(checkGraph(doc));
  const info = tensorInfo(d);
  return {
    buffer_types: d.buffer_types.map((b) => [b.alignment, b.max_size === null ? null : String(b.max_size)]),
    tensors: d.tensors.map((t, i) => ({
      name: t.name, op: t.op, type: t.type,
      ne: trimNe(info.ne[i]).map(String), nb: info.nb[i].map(String),
      src: trimHoles(t.src || []),
      view_src: t.view_src ?? null, view_offs: t.view_src === undefined || t.view_src === null ? null : String(t.view_offs ?? 0),
      flags: [...new Set(t.flags || [])].filter((f) => f !== 'compute').sort(),
      alloc_size: t.alloc_size === undefined ? null : String(t.alloc_size),
      buffer_type: t.buffer_type ?? null,
    })),
    nodes: d.nodes, leafs: d.leafs, node_buffer_ids: d.node_buffer_ids, leaf_buffer_ids: d.leaf_buffer_ids,
  };
}

function trimHoles(src) {
  const s = src.slice();
  while (s.length && (s[s.length - 1] === null || s[s.length - 1] === undefined)) s.pop();
  return s.map((v) => v ?? null);
}

/**
 * A copy of the document without buffer type b: tensors and graph entries
 * assigned to it move to type 0 (or to the previous type), later indices shift.
 * @param {object} doc normalized
 * @param {number} b
 * @returns {object}
 */
export function removeBufferType(doc, b) {
  if (doc.buffer_types.length <= 1) throw new Error('a graph needs at least one buffer type');
  const remap = (v) => (v === b ? Math.max(0, b - 1) : v > b ? v - 1 : v);
  return {
    ...doc,
    buffer_types: doc.buffer_types.filter((_, i) => i !== b),
    tensors: doc.tensors.map((t) => (t.buffer_type === undefined || t.buffer_type === null ? t : { ...t, buffer_type: remap(t.buffer_type) })),
    node_buffer_ids: doc.node_buffer_ids.map(remap),
    leaf_buffer_ids: doc.leaf_buffer_ids.map(remap),
  };
}

/**
 * A copy of the document without some tensors (their consumers must go too:
 * pass dependents). Indices are renumbered everywhere.
 * @param {object} doc normalized
 * @param {number[]} indices
 * @returns {object}
 */
export function removeTensors(doc, indices) {
  const gone = new Set(indices);
  const map = new Int32Array(doc.tensors.length).fill(-1);
  let k = 0;
  doc.tensors.forEach((_, i) => { if (!gone.has(i)) map[i] = k++; });
  const re = (v) => (v === null || v === undefined ? v : map[v]);
  const tensors = [];
  doc.tensors.forEach((t, i) => {
    if (gone.has(i)) return;
    const u = { ...t };
    if (t.src) u.src = t.src.map((s) => (s === null || s === undefined || map[s] < 0 ? null : map[s]));
    if (t.view_src !== undefined && t.view_src !== null) u.view_src = re(t.view_src);
    tensors.push(u);
  });
  const keep = (list, ids) => {
    const l = [];
    const b = [];
    list.forEach((t, p) => { if (!gone.has(t)) { l.push(map[t]); b.push(ids[p]); } });
    return [l, b];
  };
  const [nodes, nodeIds] = keep(doc.nodes, doc.node_buffer_ids);
  const [leafs, leafIds] = keep(doc.leafs, doc.leaf_buffer_ids);
  return { ...doc, tensors, nodes, leafs, node_buffer_ids: nodeIds, leaf_buffer_ids: leafIds };
}
