// timeline-labels.js: which tensor names fit on the timeline's rectangles, and where.
//
// Pure geometry over a timeline layout (timeline-layout.js) at a zoom: a name is written inside
// the visible part of its rectangle when the box is tall enough for a line of text and wide
// enough for the name (or a cut name of at least MIN_CHARS characters and an ellipsis). Views
// carry no label (they are drawn over their owner). The screen (Timeline.jsx) and the SVG export
// (timeline-svg.js) draw the same labels.

import { rectBox, IDENTITY_Y } from './timeline-layout.js';

/** px per character of the label font (10 px sans-serif; a generous average so names do not spill) */
export const LABEL_CHAR_PX = 6.2;
/** px: the smallest box height that holds a line of label text */
export const LABEL_MIN_HEIGHT = 11;
/** the fewest characters of a cut name worth writing (with the ellipsis) */
const MIN_CHARS = 3;
/** px of padding left and right of a label */
const PAD = 3;

/**
 * @typedef {{i: number, lane: number, x: number, y: number, text: string, full: string}} RectLabel
 *   x: the label's left end, y: its baseline's middle (use dominant-baseline central / dy 0.32em)
 */

/**
 * @param {object} layout timelineLayout(...)
 * @param {(i: number) => string} nameOf a rect's name
 * @param {{zx: object, zys: object[]}} zoom
 * @param {{max?: number, charPx?: number}} [opts] max: at most this many labels (the widest boxes first)
 * @returns {RectLabel[]}
 */
export function rectLabels(layout, nameOf, zoom, { max = 600, charPx = LABEL_CHAR_PX } = {}) {
  const found = [];
  layout.lanes.forEach((lane, k) => {
    const zy = zoom.zys[k] ?? IDENTITY_Y;
    const top = lane.top;
    const bottom = lane.top + lane.height;
    for (const r of lane.rects) {
      if (r.view) continue;
      const b = rectBox(layout, lane, r, zoom.zx, zy);
      const x0 = Math.max(b.x, layout.left);
      const x1 = Math.min(b.x + b.w, layout.right);
      const y0 = Math.max(b.y, top);
      const y1 = Math.min(b.y + b.h, bottom);
      const w = x1 - x0 - 2 * PAD;
      if (y1 - y0 < LABEL_MIN_HEIGHT || w < (MIN_CHARS + 1) * charPx) continue;
      const full = String(nameOf(r.i));
      const fits = Math.floor(w / charPx);
      const text = full.length <= fits ? full : `${full.slice(0, Math.max(MIN_CHARS, fits - 1))}…`;
      found.push({ i: r.i, lane: k, x: x0 + PAD, y: (y0 + y1) / 2, text, full, area: w * (y1 - y0) });
    }
  });
  if (found.length > max) found.sort((a, b) => b.area - a.area).length = max;
  return found.map(({ area, ...l }) => l);
}
