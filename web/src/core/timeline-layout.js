// timeline-layout.js: geometry of the timeline, without drawing it.
//
// One section per buffer type, one lane per chunk. x: execution step
// (a column per step, column -1 for memory handed out before the first
// node); y: byte offset in the chunk, 0 at the lane's bottom, on a linear
// scale, a logarithmic one (symlog: linear near 0, so offset 0 stays on the
// axis) or a piecewise linear one (the offsets where a rectangle starts or
// ends cut the lane into bands, each band as tall as the log of its bytes, so
// one huge tensor takes a band, not the lane). The same geometry serves the SVG and the canvas renderers, hit
// testing and the SVG export. Zoom: one x transform for all lanes ({k, x}:
// px = x + k*base), one y transform per lane ({k, t}: height above the
// lane's bottom = t + k*v, v the unzoomed height of a byte offset).

import { binaryTicks, spacedBinaryTicks, formatTickBytes } from './byte-ticks.js';

/**
 * @typedef {{k: number, x: number}} ZoomX
 * @typedef {{k: number, t: number}} ZoomY
 * @typedef {object} Lane
 * @property {number} buffer
 * @property {number} chunk
 * @property {number} top      px
 * @property {number} height   px
 * @property {number} size     the chunk's bytes
 * @property {number} domain   bytes at the lane's top (same for every lane of a buffer type)
 * @property {'linear'|'log'|'piecewise'} scale
 * @property {number} linearBelow  bytes: a log lane is linear below this (symlog constant)
 * @property {{at: Float64Array, v: Float64Array}|null} bands  piecewise: band edges in bytes, and
 *   their heights above the bottom as fractions of the lane (both ascending)
 * @property {number|null} maxSize
 * @property {number|null} capacity  bytes a CSV problem should fit in (drawn as a line), or null
 * @property {object[]} rects  the rects drawn in it
 * @typedef {object} Layout
 * @property {number} width
 * @property {number} height
 * @property {number} left     plot area, px
 * @property {number} right
 * @property {number} steps
 * @property {Lane[]} lanes
 * @property {Array<{buffer: number, top: number, title: string, empty: boolean}>} sections
 */

export const MARGIN = { left: 78, right: 14, top: 30, bottom: 10 };
/** px: a section's title row, the label strip above each lane (chunk and size), the gap below it */
export const SECTION_HEAD = 20;
export const LANE_HEAD = 14;
export const LANE_GAP = 6;
/** px: the smallest lane drawn when the height available is split among many lanes */
export const MIN_LANE_HEIGHT = 48;
/** a log lane is linear over its bottom 1/LOG_RANGE of bytes */
const LOG_RANGE = 1024;

/**
 * Lay out lanes for a model (see plan-model.js) or any timeline source of the same shape
 * (whatif-model.js: one "buffer" of items, optionally with a capacity).
 * @param {{steps: number, rects: object[], buffers: object[]}} model
 * @param {{width: number, height?: number, laneHeight?: number, showViews?: boolean, scale?: 'linear'|'log'|'piecewise'}} opts
 *   height: px the whole timeline may take; the lanes share what the titles leave
 *   (never less than MIN_LANE_HEIGHT each). laneHeight overrides it.
 * @returns {Layout}
 */
export function timelineLayout(model, { width, height, laneHeight, showViews = true, scale = 'linear' }) {
  const lanes = [];
  const sections = [];
  const nLanes = model.buffers.reduce((a, b) => a + b.chunkSizes.length, 0);
  const nEmpty = model.buffers.filter((b) => b.chunkSizes.length === 0).length;
  const fixed = MARGIN.top + MARGIN.bottom + model.buffers.length * (SECTION_HEAD + LANE_GAP) + nEmpty * 14 + nLanes * (LANE_HEAD + LANE_GAP);
  const maxChunks = Math.max(1, ...model.buffers.map((b) => b.chunkSizes.length));
  const lh = laneHeight ?? (height && nLanes ? Math.max(MIN_LANE_HEIGHT, Math.floor((height - fixed) / nLanes))
    : maxChunks > 6 ? 64 : maxChunks > 2 ? 96 : 150);
  let y = MARGIN.top;
  for (const b of model.buffers) {
    const empty = b.chunkSizes.length === 0;
    sections.push({ buffer: b.index, top: y, title: b.name, empty });
    y += SECTION_HEAD;
    if (empty) { y += 14 + LANE_GAP; continue; }
    const biggest = Math.max(1, ...b.chunkSizes);
    const limits = [b.maxSize, b.capacity].filter((v) => v && v <= biggest * 1.6);
    const domain = Math.max(biggest, ...limits) * 1.04;
    b.chunkSizes.forEach((size, c) => {
      y += LANE_HEAD;
      lanes.push({
        buffer: b.index, chunk: c, top: y, height: lh, size, domain, scale, linearBelow: domain / LOG_RANGE, bands: null,
        maxSize: b.maxSize, capacity: b.capacity ?? null, rects: [],
      });
      y += lh + LANE_GAP;
    });
    y += LANE_GAP;
  }
  const laneOf = new Map(lanes.map((l, k) => [`${l.buffer}:${l.chunk}`, k]));
  for (const r of model.rects) {
    if (r.view && !showViews) continue;
    const k = laneOf.get(`${r.buffer}:${r.chunk}`);
    if (k !== undefined) lanes[k].rects.push(r);
  }
  // owners first, views on top
  for (const l of lanes) l.rects.sort((a, b) => (a.view === b.view ? 0 : a.view ? 1 : -1));
  if (scale === 'piecewise') for (const l of lanes) l.bands = bandsOf(l);
  return { width, height: y + MARGIN.bottom, left: MARGIN.left, right: width - MARGIN.right, steps: model.steps, lanes, sections };
}

/**
 * The bands of a piecewise lane: cut at every offset where a rectangle starts or ends (and
 * at 0, the chunk's size, the domain); a band of n bytes is log1p(n / linearBelow) tall.
 * @param {Lane} lane
 * @returns {{at: Float64Array, v: Float64Array}}
 */
function bandsOf(lane) {
  const cuts = new Set([0, lane.size, lane.domain]);
  for (const r of lane.rects) {
    cuts.add(r.offset);
    cuts.add(r.offset + Math.max(r.size, 0));
  }
  const at = Float64Array.from([...cuts].filter((x) => x >= 0 && x <= lane.domain)).sort();
  const v = new Float64Array(at.length);
  for (let k = 1; k < at.length; k++) v[k] = v[k - 1] + Math.log1p((at[k] - at[k - 1]) / lane.linearBelow);
  const total = v[at.length - 1] || 1;
  for (let k = 0; k < v.length; k++) v[k] /= total;
  return { at, v };
}

/** index k of the band [xs[k], xs[k+1]) that holds x (clamped to the bands) */
function bandIndex(xs, x) {
  let lo = 0;
  let hi = xs.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (xs[mid] <= x) lo = mid; else hi = mid - 1;
  }
  return Math.max(0, lo);
}

/** piecewise linear map through matching ascending knots (extrapolated past the ends) */
function throughBands(from, to, x) {
  if (from.length < 2) return x;
  const k = bandIndex(from, x);
  const span = from[k + 1] - from[k];
  return to[k] + (span > 0 ? ((x - from[k]) / span) * (to[k + 1] - to[k]) : 0);
}

/**
 * Unzoomed height above a lane's bottom of a byte offset, px (0 at offset 0, the lane's
 * height at its domain).
 * @param {Lane} lane
 * @param {number} bytes
 * @returns {number}
 */
export function laneV(lane, bytes) {
  if (lane.scale === 'log') {
    const c = lane.linearBelow;
    return (lane.height * Math.log1p(Math.max(bytes, 0) / c)) / Math.log1p(lane.domain / c);
  }
  if (lane.scale === 'piecewise' && lane.bands) return lane.height * throughBands(lane.bands.at, lane.bands.v, bytes);
  return (bytes * lane.height) / lane.domain;
}

/**
 * The byte offset at an unzoomed height above a lane's bottom (inverse of laneV).
 * @param {Lane} lane
 * @param {number} v px
 * @returns {number}
 */
export function laneBytes(lane, v) {
  if (lane.scale === 'log') {
    const c = lane.linearBelow;
    return c * Math.expm1((v / lane.height) * Math.log1p(lane.domain / c));
  }
  if (lane.scale === 'piecewise' && lane.bands) return throughBands(lane.bands.v, lane.bands.at, v / lane.height);
  return (v * lane.domain) / lane.height;
}

/**
 * Base x (before zoom) of a step boundary: step s's column spans [baseX(s), baseX(s+1)).
 * @param {Layout} layout
 * @param {number} s
 * @returns {number}
 */
export function baseX(layout, s) {
  const span = layout.steps + 1;
  return layout.left + ((s + 1) / span) * (layout.right - layout.left);
}

/**
 * The step under a base x.
 * @param {Layout} layout
 * @param {number} bx
 * @returns {number}
 */
export function stepAtBaseX(layout, bx) {
  const span = layout.steps + 1;
  return Math.floor(((bx - layout.left) / (layout.right - layout.left)) * span) - 1;
}

/** @param {ZoomX} zx @param {number} bx @returns {number} */
export const zoomX = (zx, bx) => zx.x + zx.k * bx;
/** @param {ZoomX} zx @param {number} px @returns {number} */
export const unzoomX = (zx, px) => (px - zx.x) / zx.k;

/**
 * Pixel box of a rect (screen coordinates, after zoom; not clipped).
 * @param {Layout} layout
 * @param {Lane} lane
 * @param {object} r rect
 * @param {ZoomX} zx
 * @param {ZoomY} zy
 * @returns {{x: number, y: number, w: number, h: number}}
 */
export function rectBox(layout, lane, r, zx, zy) {
  const x0 = zoomX(zx, baseX(layout, r.first));
  const x1 = zoomX(zx, baseX(layout, (r.view ? r.last : r.end ?? r.last) + 1));
  const bottom = lane.top + lane.height;
  const v0 = zy.t + zy.k * laneV(lane, r.offset);
  const v1 = zy.t + zy.k * laneV(lane, r.offset + Math.max(r.size, 0));
  return { x: x0, y: bottom - v1, w: Math.max(x1 - x0, 0.5), h: Math.max(v1 - v0, 0.75) };
}

/**
 * Screen y of a byte offset in a lane.
 * @param {Lane} lane
 * @param {ZoomY} zy
 * @param {number} bytes
 * @returns {number}
 */
export function byteY(lane, zy, bytes) {
  return lane.top + lane.height - (zy.t + zy.k * laneV(lane, bytes));
}

/**
 * Byte offset at a screen y in a lane.
 * @param {Lane} lane
 * @param {ZoomY} zy
 * @param {number} py
 * @returns {number}
 */
export function bytesAtY(lane, zy, py) {
  const v = lane.top + lane.height - py;
  return laneBytes(lane, (v - zy.t) / zy.k);
}

/**
 * Where a lane's plot drawn at one zoom lands at another: the plot rectangle [left, right] x
 * [top, bottom] drawn at (zx0, zy0) is, at (zx1, zy1), the rectangle {x, y, w, h} (both zooms are
 * linear in screen px, so moving and scaling the old pixels shows the new zoom; the canvas's
 * quick frames while zooming draw it so).
 * @param {Layout} layout
 * @param {Lane} lane
 * @param {ZoomX} zx0
 * @param {ZoomY} zy0
 * @param {ZoomX} zx1
 * @param {ZoomY} zy1
 * @returns {{x: number, y: number, w: number, h: number}}
 */
export function movedLanePlot(layout, lane, zx0, zy0, zx1, zy1) {
  const fx = zx1.k / zx0.k; // x1 = zx1.x + fx * (x0 - zx0.x)
  const fy = zy1.k / zy0.k; // height above the bottom: h1 = zy1.t + fy * (h0 - zy0.t)
  const bottom = lane.top + lane.height;
  const hTop = zy1.t + fy * (lane.height - zy0.t);
  const hBottom = zy1.t + fy * (0 - zy0.t);
  return { x: zx1.x + fx * (layout.left - zx0.x), y: bottom - hTop, w: fx * (layout.right - layout.left), h: hTop - hBottom };
}

/** px between two byte ticks, at least */
export const TICK_SPACING = 34;

/**
 * The byte ticks of a lane over what its zoom shows, at round binary values (core/byte-ticks.js):
 * the screen's axis and the SVG export draw these, so both show the same ticks.
 * @param {Lane} lane
 * @param {ZoomY} zy
 * @returns {Array<{bytes: number, y: number, label: string}>} bottom to top
 */
export function laneByteTicks(lane, zy) {
  const bottom = lane.top + lane.height;
  const lo = Math.max(0, bytesAtY(lane, zy, bottom));
  const hi = bytesAtY(lane, zy, lane.top);
  const values = lane.scale === 'linear' ? binaryTicks(lo, hi, Math.max(1, Math.floor(lane.height / TICK_SPACING))).ticks
    : spacedBinaryTicks(lo, hi, (v) => byteY(lane, zy, v), TICK_SPACING * 0.6);
  return values.map((v) => ({ bytes: v, y: byteY(lane, zy, v), label: formatTickBytes(v) }));
}

/**
 * The lane under a screen y, or -1.
 * @param {Layout} layout
 * @param {number} py
 * @returns {number}
 */
export function laneAt(layout, py) {
  return layout.lanes.findIndex((l) => py >= l.top && py < l.top + l.height);
}

/**
 * The tensor under a point: the smallest rect containing it (views win
 * over their root at equal size), or -1.
 * @param {Layout} layout
 * @param {ZoomX} zx
 * @param {ZoomY[]} zys one per lane
 * @param {number} px
 * @param {number} py
 * @returns {number} tensor index
 */
export function hitTest(layout, zx, zys, px, py) {
  const k = laneAt(layout, py);
  if (k < 0 || px < layout.left || px > layout.right) return -1;
  const lane = layout.lanes[k];
  const zy = zys[k] ?? IDENTITY_Y;
  const step = stepAtBaseX(layout, unzoomX(zx, px));
  // compared in unzoomed px, with 1.5 screen px of tolerance (thin rects stay reachable)
  const v = (lane.top + lane.height - py - zy.t) / zy.k;
  const tol = 1.5 / zy.k;
  let best = -1;
  let bestSize = Infinity;
  for (const r of lane.rects) {
    if (step < r.first || step > (r.view ? r.last : r.end ?? r.last)) continue;
    if (v < laneV(lane, r.offset) - tol || v > laneV(lane, r.offset + r.size) + tol) continue;
    const s = r.size + (r.view ? -0.5 : 0);
    if (s < bestSize) { best = r.i; bestSize = s; }
  }
  return best;
}

export const IDENTITY_X = Object.freeze({ k: 1, x: 0 });
export const IDENTITY_Y = Object.freeze({ k: 1, t: 0 });

/**
 * Apply a screen-space step to the x transform: a pan by c pixels (f = 1) or
 * a zoom by f about the point p = c / (1 - f) (as d3-zoom reports it,
 * s' = f*s + c). Kept so the plot never shrinks below its width nor
 * leaves its edges.
 * @param {ZoomX} zx
 * @param {number} f
 * @param {number} c
 * @param {Layout} layout
 * @returns {ZoomX}
 */
export function zoomXBy(zx, f, c, layout) {
  let k = zx.k;
  let x = zx.x;
  if (f === 1) {
    x += c;
  } else {
    const p = c / (1 - f);
    k = Math.min(Math.max(zx.k * f, 1), 1e7);
    const g = k / zx.k;
    x = g * zx.x + p * (1 - g);
  }
  const L = layout.left;
  const R = layout.right;
  x = Math.min(x, L - k * L);
  x = Math.max(x, R - k * R);
  return { k, x };
}

/**
 * The x transform that shows steps first..last across the plot (never zoomed out past the whole).
 * @param {Layout} layout
 * @param {number} first
 * @param {number} last
 * @returns {ZoomX}
 */
export function zoomToSteps(layout, first, last) {
  const a = baseX(layout, Math.max(-1, first));
  const b = baseX(layout, Math.min(layout.steps - 1, last) + 1);
  const k = Math.min(Math.max((layout.right - layout.left) / Math.max(b - a, 1e-9), 1), 1e7);
  return zoomXBy({ k, x: layout.left - k * a }, 1, 0, layout);
}

/**
 * The x transform that brings steps first..last into view: unchanged when they are already
 * in view, else panned (at the same zoom) to centre them.
 * @param {Layout} layout
 * @param {ZoomX} zx
 * @param {number} first
 * @param {number} last
 * @returns {ZoomX}
 */
export function panToSteps(layout, zx, first, last) {
  const a = zoomX(zx, baseX(layout, first));
  const b = zoomX(zx, baseX(layout, last + 1));
  if (b > layout.left && a < layout.right) return zx;
  const mid = (baseX(layout, first) + baseX(layout, last + 1)) / 2;
  return zoomXBy({ k: zx.k, x: (layout.left + layout.right) / 2 - zx.k * mid }, 1, 0, layout);
}

/**
 * The same for one lane's y transform (py' = f*py + c), kept so the lane
 * never shows below offset 0 nor past its top.
 * @param {ZoomY} zy
 * @param {number} f
 * @param {number} c
 * @param {Lane} lane
 * @returns {ZoomY}
 */
export function zoomYBy(zy, f, c, lane) {
  const B = lane.top + lane.height;
  let k = zy.k;
  let t = zy.t;
  if (f === 1) {
    t -= c;
  } else {
    const p = c / (1 - f);
    k = Math.min(Math.max(zy.k * f, 1), 1e9);
    const g = k / zy.k;
    t = (B - p) * (1 - g) + g * zy.t;
  }
  t = Math.min(t, 0);
  t = Math.max(t, lane.height - k * lane.height);
  return { k, t };
}

/**
 * The zoom to keep when the layout is redrawn (a new plan of the same graph, the views
 * switch, a limit changed, the pane resized): the step range when the steps are the
 * same, and each lane's byte range when that lane (buffer type and chunk) is
 * still drawn at the same place with the same byte domain; the rest starts unzoomed.
 * @param {Layout|null} prev
 * @param {Layout} next
 * @param {{zx: ZoomX, zys: ZoomY[]}} zoom
 * @returns {{zx: ZoomX, zys: ZoomY[]}}
 */
export function carryZoom(prev, next, zoom) {
  if (!prev) return { zx: IDENTITY_X, zys: [] };
  let zx = IDENTITY_X;
  if (prev.steps === next.steps && prev.left === next.left && prev.right === next.right) zx = zoom.zx;
  else if (prev.steps === next.steps) {
    // another width (the pane was resized, a scroll bar came): the same steps in view
    const frac = (L, bx) => (bx - L.left) / (L.right - L.left);
    const f0 = frac(prev, unzoomX(zoom.zx, prev.left));
    zx = { k: zoom.zx.k, x: next.left - zoom.zx.k * (next.left + f0 * (next.right - next.left)) };
  }
  const zys = next.lanes.map((l, k) => {
    const p = prev.lanes[k];
    const same = p && zoom.zys[k] && p.buffer === l.buffer && p.chunk === l.chunk && p.domain === l.domain
      && p.top === l.top && p.height === l.height && p.scale === l.scale;
    return same ? zoom.zys[k] : IDENTITY_Y;
  });
  return { zx, zys };
}
