// steps.js: the memory at one execution step, derived from lifetimes.
//
// At step i (node i running; -1 = before the first node) a tensor is live
// when first <= i <= end (end: its last step, or the step before a consumer
// took its memory over in place). Placed: its memory was handed out at step i.
// Freed: its memory came back after step i-1, so it is free (or reused) now;
// memory taken over in place is handed on, not freed.
// Free gaps per chunk are the chunk's bytes not covered by a live tensor
// (views own no memory and are left out), for chunks opened by then.

/**
 * Gaps in [0, extent) not covered by the intervals.
 * @param {Array<[number, number]>} intervals [start, end) pairs, any order, may overlap
 * @param {number} extent
 * @returns {Array<[number, number]>} sorted, disjoint, non-empty
 */
export function freeGaps(intervals, extent) {
  const sorted = intervals.filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
  const gaps = [];
  let at = 0;
  for (const [a, b] of sorted) {
    if (a > at) gaps.push([at, Math.min(a, extent)]);
    at = Math.max(at, b);
    if (at >= extent) break;
  }
  if (at < extent) gaps.push([at, extent]);
  return gaps.filter(([a, b]) => b > a);
}

/**
 * @typedef {object} StepState
 * @property {number} step
 * @property {number[]} live     tensors holding memory of their own
 * @property {number[]} liveViews views whose root is live
 * @property {number[]} placed
 * @property {number[]} freed
 * @property {number[]} liveBytes  per buffer type (padded sizes)
 * @property {Array<{buffer: number, chunk: number, offset: number, size: number}>} gaps
 * @property {Array<{buffer: number, chunk: number, size: number}>} highWater  bytes of each chunk used so far
 */

/**
 * What the memory looks like at a step.
 * @param {{rects: object[], buffers: object[]}} model from buildModel
 * @param {number} step
 * @returns {StepState}
 */
export function stepState(model, step) {
  const live = [];
  const liveViews = [];
  const placed = [];
  const freed = [];
  const liveBytes = model.buffers.map(() => 0);
  const occupied = new Map();
  const high = new Map();
  for (const r of model.rects) {
    const isLive = r.first <= step && step <= (r.view ? r.last : r.end);
    if (r.view) {
      if (isLive) liveViews.push(r.i);
      continue;
    }
    const key = `${r.buffer}:${r.chunk}`;
    if (r.first <= step) high.set(key, Math.max(high.get(key) ?? 0, r.offset + r.padded));
    if (r.first === step) placed.push(r.i);
    if (r.last === step - 1 && r.heir < 0) freed.push(r.i);
    if (!isLive) continue;
    live.push(r.i);
    liveBytes[r.buffer] += r.padded;
    if (!occupied.has(key)) occupied.set(key, []);
    occupied.get(key).push([r.offset, r.offset + r.padded]);
  }
  const gaps = [];
  const highWater = [];
  model.buffers.forEach((b) => {
    b.chunkSizes.forEach((size, c) => {
      const key = `${b.index}:${c}`;
      const opened = high.has(key);
      highWater.push({ buffer: b.index, chunk: c, size: high.get(key) ?? 0 });
      if (!opened) return; // not made yet at this step: no free blocks
      for (const [a, e] of freeGaps(occupied.get(key) ?? [], size)) gaps.push({ buffer: b.index, chunk: c, offset: a, size: e - a });
    });
  });
  return { step, live, liveViews, placed, freed, liveBytes, gaps, highWater };
}
