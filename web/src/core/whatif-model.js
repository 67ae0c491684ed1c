// whatif-model.js: a what-if result ("galloc-whatif" JSON) as numbers and as timeline data.
//
// whatifRows gives the panel's table (each planner's total, bytes and % above the lower
// bound, proof, best); graphWhatifSource and csvWhatifSource turn one planner's plan into
// the shape the timeline draws (see timeline-layout.js and steps.js): one rectangle per
// item over its lifetime at its chunk and offset, an in-place chain as one item over its
// merged lifetime. ggmlSource wraps the ordinary plan model in the same shape.

/** the planners of a result, in the library's order */
export const PLANNERS = ['ggml', 'greedy-by-size', 'greedy-by-breadth', 'exact'];

/** @param {number|string|bigint|null|undefined} v a JSON byte count (decimal strings past 2^53) @returns {bigint} */
const big = (v) => (v === null || v === undefined ? 0n : BigInt(v));
/** @param {number|string|bigint} v @returns {number} */
const num = (v) => (typeof v === 'number' ? v : Number(v));

/**
 * @typedef {object} WhatifRow   one planner's line in the panel
 * @property {string} name
 * @property {boolean} valid       has a plan
 * @property {boolean} checked     passes the library's checker
 * @property {bigint} total        bytes
 * @property {bigint} above        bytes above the lower bound
 * @property {number|null} percent % above the lower bound (null: bound 0)
 * @property {number} chunks
 * @property {number} timeMs
 * @property {boolean} best
 * @property {boolean} proved      exact: proved optimal
 * @property {bigint} bound        exact: nothing smaller exists
 * @property {number} nodes        exact: search nodes
 * @property {string} note
 * @property {boolean|null} fits   total <= capacity (null: no capacity)
 */

/**
 * The panel's table: one row per planner.
 * @param {import('./galloc.js').WhatifResult} result
 * @returns {WhatifRow[]}
 */
export function whatifRows(result) {
  const capacity = result.capacity === null || result.capacity === undefined ? null : big(result.capacity);
  return result.planners.map((p) => {
    const total = big(p.total);
    return { // above the bound: computed in C (galloc_whatif_above_bound), only formatted here
      name: p.name, valid: p.valid, checked: p.checked, total, above: big(p.above_bound),
      percent: p.above_bound_percent,
      chunks: p.chunk_sizes.length, timeMs: p.time_us / 1000, best: p.name === result.best,
      proved: p.proved_optimal, bound: big(p.bound), nodes: p.nodes, note: p.note,
      fits: capacity === null || !p.valid ? null : total <= capacity,
    };
  });
}

/**
 * The headline: ggml's total, the best total, what the best saves.
 * @param {import('./galloc.js').WhatifResult} result
 * @returns {{lowerBound: bigint, ggml: bigint, best: string, bestTotal: bigint, saved: bigint, savedPercent: number, capacity: bigint|null}}
 */
export function whatifSummary(result) {
  const rows = whatifRows(result);
  const ggml = rows.find((r) => r.name === 'ggml');
  const best = rows.find((r) => r.best) ?? ggml;
  const saved = ggml.total > best.total ? ggml.total - best.total : 0n;
  return {
    lowerBound: big(result.lower_bound), ggml: ggml.total, best: best.name, bestTotal: best.total, saved,
    savedPercent: ggml.total > 0n ? Number((saved * 1000000n) / ggml.total) / 10000 : 0,
    capacity: result.capacity === null || result.capacity === undefined ? null : big(result.capacity),
  };
}

/**
 * A planner of a result by name, when it has a plan; else null.
 * @param {import('./galloc.js').WhatifResult} result
 * @param {string} name
 * @returns {import('./galloc.js').WhatifPlanner|null}
 */
export function plannerOf(result, name) {
  const p = result.planners.find((x) => x.name === name);
  return p && p.valid ? p : null;
}

/**
 * The rectangles of one planner's plan: one per item, in item order, with the fields the
 * timeline and stepState read (buffer 0, never a view, no heir).
 * @param {import('./galloc.js').WhatifResult} result
 * @param {import('./galloc.js').WhatifPlanner} planner
 * @param {number} origin subtracted from every time (CSV problems start their x axis at 0)
 * @returns {object[]}
 */
export function itemRects(result, planner, origin = 0) {
  return result.items.map((it, k) => {
    const first = num(it.first) - origin;
    const last = num(it.last) - origin;
    const size = num(it.size);
    return {
      i: it.id, item: k, buffer: 0, chunk: planner.chunks[k], offset: num(planner.offsets[k]), size, padded: size,
      first, last, end: last, view: false, how: planner.name, parent: -1, family: it.id, heir: -1, tensors: it.tensors,
    };
  });
}

/**
 * The one "buffer" a what-if plan has, in the shape of plan-model.js's BufferStats.
 * @param {import('./galloc.js').WhatifResult} result
 * @param {import('./galloc.js').WhatifPlanner} planner
 * @param {string} name
 * @param {object[]} rects
 * @returns {object}
 */
function planBuffer(result, planner, name, rects) {
  const chunkSizes = planner.chunk_sizes.map(num);
  return {
    index: 0, name, alignment: result.alignment, maxSize: result.max_size === null ? null : num(result.max_size),
    capacity: result.capacity === null || result.capacity === undefined ? null : num(result.capacity),
    chunkSizes, size: num(planner.total), peakLive: num(result.lower_bound), overhead: num(planner.above_bound),
    nTensors: rects.length, nViews: 0, nInplace: 0, sharedWith: null,
  };
}

const where = (r) => `chunk ${r.chunk} · offset ${r.offset} · [${r.offset}, ${r.offset + r.size})`;

/**
 * One planner's plan of a graph's allocator as timeline data. Rectangles are indexed by the
 * chain's first tensor (r.i), so selection and hover stay tensor indices; byTensor maps every
 * tensor of a chain to its item's rectangle.
 * @param {object} m the graph's model (plan-model.js buildModel)
 * @param {import('./galloc.js').WhatifResult} result of whatif() for that graph
 * @param {string} plannerName
 * @returns {object|null} the source, or null when that planner has no plan
 */
export function graphWhatifSource(m, result, plannerName) {
  const planner = plannerOf(result, plannerName);
  if (!planner) return null;
  const rects = itemRects(result, planner, 0);
  const members = rects.map(() => []);
  const byTensor = new Array(m.doc.tensors.length).fill(null);
  (result.tensor_item ?? []).forEach((k, t) => {
    if (k >= 0 && k < rects.length) { members[k].push(t); byTensor[t] = rects[k]; }
  });
  const bt = result.buffer_type ?? 0;
  const btName = m.doc.buffer_types[bt]?.name ?? `buffer ${bt}`;
  const buffer = planBuffer(result, planner, `${btName} · ${plannerName} plan`, rects);
  const ggml = plannerOf(result, 'ggml');
  const nameOf = (t) => m.doc.tensors[t]?.name || `#${t}`;
  return {
    kind: 'whatif', planner: plannerName, title: `${m.doc.name || 'graph'} · ${btName} · ${plannerName}`,
    caption: `${btName}: ${plannerName} plan of ${rects.length} items (in-place chains merged)`,
    steps: m.steps, rects, byTensor, buffers: [buffer], tensors: true, stepped: true,
    label: (i) => nameOf(i),
    facts: (i) => {
      const r = byTensor[i];
      if (!r) return null;
      const list = members[r.item];
      const others = list.filter((t) => t !== r.i);
      const g = ggml ? `ggml: chunk ${ggml.chunks[r.item]} · offset ${num(ggml.offsets[r.item])}` : '';
      return {
        name: nameOf(r.i),
        detail: others.length ? `in-place chain of ${list.length} tensors: ${list.slice(0, 6).map(nameOf).join(' → ')}${list.length > 6 ? ' …' : ''}` : `item ${r.item} · ${r.size} bytes`,
        where: where(r),
        steps: `live from ${r.first < 0 ? 'before the first node' : `step ${r.first}`} to step ${r.last}`,
        why: `${plannerName} plan${g ? `; ${g}` : ''}`,
      };
    },
  };
}

/**
 * One planner's plan of a CSV problem as timeline data: a rectangle per row over
 * [lower, upper), times shifted so that the earliest lower is step 0.
 * @param {import('./galloc.js').WhatifResult} result of whatifCsv()
 * @param {string} plannerName
 * @param {{name: string}} problem the CSV's name (file name, or "pasted CSV")
 * @returns {object|null}
 */
export function csvWhatifSource(result, plannerName, problem) {
  const planner = plannerOf(result, plannerName);
  if (!planner) return null;
  // loops, not Math.min(...list): spreading 130k+ arguments overflows the call stack
  let origin = result.items.length ? Infinity : 0;
  for (const it of result.items) origin = Math.min(origin, num(it.first));
  const rects = itemRects(result, planner, origin);
  let steps = 1;
  for (const r of rects) steps = Math.max(steps, r.last + 1);
  const buffer = planBuffer(result, planner, `${problem.name} · ${plannerName} plan`, rects);
  return {
    kind: 'csv', planner: plannerName, title: `${problem.name} · ${plannerName}`,
    caption: `CSV problem ${problem.name}: ${rects.length} rows · ${plannerName} plan · x: time${origin ? ` − ${origin}` : ''}`,
    steps, rects, byTensor: rects, buffers: [buffer], tensors: false, stepped: false,
    label: (i) => `row ${i}`,
    facts: (i) => {
      const r = rects[i];
      if (!r) return null;
      return {
        name: `row ${i}`,
        detail: `${r.size} bytes`,
        where: where(r),
        steps: `live over [${r.first + origin}, ${r.last + origin + 1})`,
        why: `${plannerName} plan`,
      };
    },
  };
}

/**
 * The graph's own plan (ggml's) in the same shape: the model, with what the timeline asks of
 * any source. Its facts come from the tooltip's usual lines (tensorFacts).
 * @param {object} m buildModel(...)
 * @returns {object}
 */
export function ggmlSource(m) {
  return {
    ...m, kind: 'ggml', planner: 'ggml', title: m.doc.name, caption: '', tensors: true, stepped: true,
    label: (i) => m.doc.tensors[i]?.name ?? `#${i}`, facts: null,
  };
}
