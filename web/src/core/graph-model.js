// graph-model.js: graph documents as data: defaults, indices, edits.
//
// Documents are read and checked by the C reader only (Galloc.normalize: one checker, the
// CLI's verdicts); normalizeGraph fills the defaults a parsed graph text may leave out (one
// host buffer type, buffer ids); tensorInfo and graphIndex derive what the views need
// (strides, byte sizes, roots, consumers, node positions). A document's own types ("type_traits",
// newer than ggml's tables) are kept and used for its sizes.

import { big, contiguousNb, ne4, nbytes, withTypes } from './ggml-types.js';

/** the buffer type a document without `buffer_types` gets */
export const DEFAULT_BUFFER_TYPE = Object.freeze({ name: 'host', alignment: 32, max_size: null });

/**
 * A document with every default filled in: format, version, name, buffer_types,
 * node_buffer_ids and leaf_buffer_ids. Documents reach the UI already read and checked by the
 * C reader (Galloc.normalize, Galloc.preset, a model's document) or made by the graph text
 * parser: both give nodes and leafs. Does not modify its input; the result shares its tensor
 * objects (neither is changed in place afterwards).
 * @param {object} doc
 * @returns {object}
 */
export function normalizeGraph(doc) {
  // the tensor objects are shared, not copied (300,000 copies of them cost more than planning):
  // documents are never changed in place (edits make new ones: removeTensors, removeBufferType)
  const tensors = doc.tensors.slice();
  const { nodes, leafs } = doc;
  if (!Array.isArray(nodes) || !Array.isArray(leafs)) throw new Error('nodes, leafs: missing (read the document with the C reader, Galloc.normalize, first)');
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
    ...(doc.type_traits?.length ? { type_traits: doc.type_traits.map((t) => ({ ...t })) } : {}),
  };
}

/**
 * Per-tensor numbers derived from a document: four-dimensional ne and nb
 * (BigInt), ggml_nbytes, alloc size, root (view_src or itself), view offset.
 * @param {object} doc
 * @returns {{ne: bigint[][], nb: bigint[][], bytes: bigint[], allocSize: bigint[], root: number[], offs: bigint[]}}
 */
export function tensorInfo(doc) {
  return withTypes(doc.type_traits, () => tensorInfoOf(doc));
}

function tensorInfoOf(doc) {
  const n = doc.tensors.length;
  const out = { ne: new Array(n), nb: new Array(n), bytes: new Array(n), allocSize: new Array(n), root: new Array(n), offs: new Array(n) };
  doc.tensors.forEach((t, i) => {
    const f = tensorFacts(t, i);
    out.ne[i] = f.ne;
    out.nb[i] = f.nb;
    out.bytes[i] = f.bytes;
    out.allocSize[i] = f.allocSize;
    out.root[i] = f.root;
    out.offs[i] = f.offs;
  });
  return out;
}

/**
 * tensorInfo's numbers for one tensor (within withTypes of its document, for its own types): what
 * a writer that goes a slice of tensors at a time needs, without the whole table first.
 * @param {object} t a tensor of a normalized document
 * @param {number} i its index
 * @returns {{ne: bigint[], nb: bigint[], bytes: bigint, allocSize: bigint, root: number, offs: bigint}}
 */
export function tensorFacts(t, i) {
  const ne = ne4(t.ne);
  const nb = t.nb ? t.nb.map(big) : contiguousNb(t.type, ne);
  const bytes = nbytes(t.type, ne, nb);
  const isView = t.view_src !== undefined && t.view_src !== null;
  return {
    ne, nb, bytes,
    allocSize: t.alloc_size !== undefined ? big(t.alloc_size) : bytes,
    root: isView ? t.view_src : i,
    offs: isView ? big(t.view_offs ?? 0) : 0n,
  };
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
