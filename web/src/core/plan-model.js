// plan-model.js: a graph and its plan joined into what the views draw.
//
// buildModel pairs every tensor of a normalized graph document with its
// place in a plan document (buffer, chunk, offset, size, how, parent,
// first/last step), fills in lifetimes when a plan lacks them (golden plan
// files do), gives each tensor a colour family (in-place chains and views
// share their root's), and computes the numbers per buffer type.

import { tensorInfo, graphIndex } from './graph-model.js';

const num = (v) => (v === null || v === undefined ? null : typeof v === 'string' ? Number(v) : v);
const alignUp = (v, a) => (a > 1 ? Math.ceil(v / a) * a : v);

/**
 * @typedef {object} Rect   one placed tensor
 * @property {number} i        tensor index
 * @property {number} buffer
 * @property {number} chunk
 * @property {number} offset   bytes
 * @property {number} size     bytes (alloc size; nbytes for views)
 * @property {number} padded   size rounded up to the buffer's alignment (views: size)
 * @property {number} first    step it gets memory (-1: before the first node)
 * @property {number} last     last step its memory is its own
 * @property {number} end      last step drawn as its own: last, or one less when a
 *                             consumer took its memory over in place at step `last`
 * @property {number} heir     the tensor that took its memory over in place, or -1
 * @property {boolean} view
 * @property {string} how      best_fit | last_block | grow | new_chunk | inplace | view | '' (unknown)
 * @property {number} parent   in-place source or view source, -1 otherwise
 * @property {number} family   root of its in-place/view chain (colour)
 *
 * @typedef {object} BufferStats
 * @property {number} index
 * @property {string} name
 * @property {number} alignment
 * @property {number|null} maxSize
 * @property {number[]} chunkSizes
 * @property {number} size
 * @property {number} peakLive  largest sum of live bytes at one step (lower bound of any plan)
 * @property {number|null} overhead  bytes above peakLive, as the plan document's C writer computed it
 *   (galloc_overhead_bytes); null for a plan document that does not carry it (golden plan files)
 * @property {number} nTensors  tensors with memory of their own in it
 * @property {number} nViews
 * @property {number} nInplace
 * @property {number|null} sharedWith
 */

/**
 * Join a graph and its plan.
 * @param {object} doc normalized graph document
 * @param {object} plan plan document
 * @returns {{doc: object, plan: object, steps: number, rects: Rect[], byTensor: (Rect|null)[], buffers: BufferStats[], info: object, index: object, nInplace: number, total: number}}
 */
export function buildModel(doc, plan) {
  const info = tensorInfo(doc);
  const index = graphIndex(doc);
  const n = doc.tensors.length;
  const steps = plan.n_steps ?? doc.nodes.length;
  if (!plan.tensors || plan.tensors.length !== n) {
    throw new Error(`the plan has ${plan.tensors ? plan.tensors.length : 'no'} tensors, the graph ${n}`);
  }
  const aligns = doc.buffer_types.map((b) => b.alignment);
  const haveLife = plan.tensors.some((p) => p && p.first !== undefined);
  const fallback = haveLife ? null : lifetimes(doc, index, steps);
  const byTensor = new Array(n).fill(null);
  const rects = [];
  plan.tensors.forEach((p, i) => {
    if (!p) return;
    const view = !!p.view || p.how === 'view';
    const size = num(p.size);
    const r = {
      i, buffer: p.buffer, chunk: p.chunk, offset: num(p.offset), size,
      padded: view ? size : alignUp(size, aligns[p.buffer] ?? 1),
      first: p.first ?? fallback.first[i], last: p.last ?? fallback.last[i], view,
      how: p.how ?? (view ? 'view' : ''), parent: p.parent ?? (view ? info.root[i] : -1), family: i, end: 0, heir: -1,
    };
    r.end = r.last;
    byTensor[i] = r;
    rects.push(r);
  });
  const families = new Int32Array(n).fill(-1);
  for (const r of rects) {
    r.family = familyOf(byTensor, r.i, families);
    const p = r.how === 'inplace' ? byTensor[r.parent] : null;
    if (p) {
      p.heir = r.i;
      if (p.last >= r.first) p.end = Math.max(p.first, r.first - 1);
    }
  }
  const buffers = doc.buffer_types.map((bt, b) => {
    const pb = (plan.buffers || [])[b] || {};
    const chunkSizes = (pb.chunk_sizes || []).map(num);
    const size = num(pb.size) ?? chunkSizes.reduce((a, c) => a + c, 0);
    const own = rects.filter((r) => r.buffer === b && !r.view);
    const peakLive = num(pb.peak_live) ?? peakOf(own, steps);
    return {
      index: b, name: bt.name, alignment: bt.alignment, maxSize: num(bt.max_size), chunkSizes, size, peakLive,
      overhead: num(pb.overhead), nTensors: own.length, nViews: rects.filter((r) => r.buffer === b && r.view).length,
      nInplace: own.filter((r) => r.how === 'inplace').length, sharedWith: pb.shared_with ?? null,
    };
  });
  const nInplace = plan.n_inplace ?? rects.filter((r) => r.how === 'inplace').length;
  const total = buffers.reduce((a, b) => a + b.size, 0);
  return { doc, plan, steps, rects, byTensor, buffers, info, index, nInplace, total };
}

/**
 * the root of tensor i's in-place/view chain; families[] keeps each answer, so a chain of any
 * length is walked once (a 300,000-tensor in-place chain is one family)
 */
function familyOf(byTensor, i, families) {
  const path = [];
  let cur = i;
  let root = -1;
  while (root < 0) {
    if (families[cur] >= 0) { root = families[cur]; break; }
    const r = byTensor[cur];
    if (!r || r.parent < 0 || !byTensor[r.parent] || (r.how !== 'inplace' && r.how !== 'view') || path.length > byTensor.length) { root = cur; break; }
    path.push(cur);
    cur = r.parent;
  }
  for (const k of path) families[k] = root;
  families[cur] = root;
  return root;
}

/**
 * Largest sum of padded bytes live at one step.
 * @param {Rect[]} rects non-view rects of one buffer type
 * @param {number} steps
 * @returns {number}
 */
export function peakOf(rects, steps) {
  const delta = new Float64Array(steps + 2);
  for (const r of rects) {
    delta[Math.max(r.first, -1) + 1] += r.padded;
    delta[Math.min(r.end ?? r.last, steps - 1) + 2] -= r.padded;
  }
  let live = 0;
  let peak = 0;
  for (let s = 0; s <= steps; s++) { live += delta[s]; peak = Math.max(peak, live); }
  return peak;
}

/**
 * Approximate lifetimes for plans that carry none: a leaf or input from
 * before the first node, a node from its step (or from the step of a node
 * before it in the graph that reads it, where upstream allocates it); kept until its last
 * consumer (through views), or to the end for outputs and unconsumed nodes.
 * @param {object} doc
 * @param {object} index graphIndex(doc)
 * @param {number} steps
 * @returns {{first: Int32Array, last: Int32Array}}
 */
export function lifetimes(doc, index, steps) {
  const n = doc.tensors.length;
  const first = new Int32Array(n).fill(-1);
  const last = new Int32Array(n).fill(-1);
  const root = (i) => { const v = doc.tensors[i].view_src; return v === undefined || v === null ? i : v; };
  doc.tensors.forEach((t, i) => {
    if (index.step[i] >= 0 && !(t.flags || []).includes('input')) first[i] = index.step[i];
  });
  doc.nodes.forEach((t, k) => {
    for (const s of doc.tensors[t].src || []) {
      if (s === null || s === undefined) continue;
      // a node read before its own step (it comes later in the graph) gets memory there, as upstream
      if (first[s] > k && root(s) === s) first[s] = k;
      last[s] = Math.max(last[s], k);
      last[root(s)] = Math.max(last[root(s)], k);
    }
  });
  doc.tensors.forEach((t, i) => {
    const out = (t.flags || []).includes('output');
    // a node never consumed is never freed (ggml frees a tensor after its last consumer); a view never
    // consumed holds nothing itself, but keeps its root to the end
    const unconsumed = index.step[i] >= 0 && index.consumers[i].length === 0;
    if (out || (unconsumed && root(i) === i)) last[i] = steps - 1;
    if (unconsumed) last[root(i)] = steps - 1;
    if (last[i] < first[i]) last[i] = Math.max(first[i], 0);
  });
  return { first, last };
}
