// tooltip-place.js: where a tooltip goes so that it stays inside the viewport.

/** px kept between the tooltip and the pointer, and between the tooltip and the viewport's edges */
const GAP = 14;
const EDGE = 4;

/**
 * Where a box of w x h goes next to the pointer (px, py) so that it lies inside a viewport of
 * vw x vh: right of and below the pointer, else left of / above it, else against the edge.
 * @param {number} px @param {number} py @param {number} w @param {number} h @param {number} vw @param {number} vh
 * @returns {{left: number, top: number}}
 */
export function tooltipPlace(px, py, w, h, vw, vh) {
  const clamp = (v, lo, hi) => Math.max(lo, Math.min(v, hi));
  let left = px + GAP;
  if (left + w > vw - EDGE) left = px - GAP - w;
  let top = py + GAP;
  if (top + h > vh - EDGE) top = py - GAP - h;
  return { left: clamp(left, EDGE, Math.max(EDGE, vw - EDGE - w)), top: clamp(top, EDGE, Math.max(EDGE, vh - EDGE - h)) };
}
