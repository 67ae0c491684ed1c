// timeline-canvas.js: draws the timeline's rectangles on a canvas (large plans), each box cut to
// its lane by hand (no clip region) and canvas state set only when it changes. While the user
// zooms, a frame can instead move the last full drawing to the new zoom (drawZoomed: one image
// copy per lane, whatever the number of rectangles); the caller draws in full once zooming stops.
import { rectBox, movedLanePlot, IDENTITY_Y } from '../core/timeline-layout.js';
import { fillColor, strokeColor, COLORS } from '../core/colors.js';

/**
 * @param {HTMLCanvasElement} canvas
 * @param {object} layout
 * @param {{zx: object, zys: object[]}} zoom
 * @param {object|null} info stepState or null
 */
export function drawCanvas(canvas, layout, zoom, info) {
  drawRects(canvas, layout, zoom, info);
  keepDrawing(canvas, layout, zoom);
}

// the last full drawing of each canvas: a copy of its pixels and the zoom it shows
const lastFull = new WeakMap();

function keepDrawing(canvas, layout, zoom) {
  let kept = lastFull.get(canvas);
  if (!kept) {
    kept = { copy: document.createElement('canvas'), layout: null, zoom: null };
    lastFull.set(canvas, kept);
  }
  if (kept.copy.width !== canvas.width || kept.copy.height !== canvas.height) {
    kept.copy.width = canvas.width;
    kept.copy.height = canvas.height;
  }
  const c = kept.copy.getContext('2d');
  c.setTransform(1, 0, 0, 1, 0, 0);
  c.clearRect(0, 0, canvas.width, canvas.height);
  c.drawImage(canvas, 0, 0);
  kept.layout = layout;
  kept.zoom = zoom;
}

/**
 * A quick frame while zooming: the last full drawing of this layout, moved and scaled per lane to
 * the new zoom (core/timeline-layout.js movedLanePlot).
 * Returns false (drawing nothing) when there is no full drawing of this layout to move.
 * @param {HTMLCanvasElement} canvas
 * @param {object} layout
 * @param {{zx: object, zys: object[]}} zoom
 * @returns {boolean}
 */
export function drawZoomed(canvas, layout, zoom) {
  const kept = lastFull.get(canvas);
  if (!kept || kept.layout !== layout || kept.copy.width !== canvas.width) return false;
  const dpr = canvas.width / layout.width;
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, layout.width, layout.height);
  const w = layout.right - layout.left;
  layout.lanes.forEach((lane, k) => {
    const to = movedLanePlot(layout, lane, kept.zoom.zx, kept.zoom.zys[k] ?? IDENTITY_Y, zoom.zx, zoom.zys[k] ?? IDENTITY_Y);
    ctx.save();
    ctx.beginPath();
    ctx.rect(layout.left, lane.top, w, lane.height);
    ctx.clip();
    ctx.drawImage(kept.copy, layout.left * dpr, lane.top * dpr, w * dpr, lane.height * dpr, to.x, to.y, to.w, to.h);
    ctx.restore();
  });
  return true;
}

function drawRects(canvas, layout, zoom, info) {
  const dpr = window.devicePixelRatio || 1;
  const W = layout.width;
  const H = layout.height;
  if (canvas.width !== Math.round(W * dpr) || canvas.height !== Math.round(H * dpr)) {
    canvas.width = Math.round(W * dpr);
    canvas.height = Math.round(H * dpr);
    canvas.style.width = `${W}px`;
    canvas.style.height = `${H}px`;
  }
  const ctx = canvas.getContext('2d');
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, W, H);
  const live = info ? new Set([...info.live, ...info.liveViews]) : null;
  // no clip region (slow to rasterise through): each box is cut to its lane and the plot here;
  // canvas state is set only when it changes
  let alpha = 1;
  let fill = '';
  ctx.globalAlpha = 1;
  layout.lanes.forEach((lane, k) => {
    const zy = zoom.zys[k] ?? IDENTITY_Y;
    const top = lane.top;
    const bottom = lane.top + lane.height;
    // boxes narrower than a pixel (a plan of 300,000 steps on 1,500 pixels): one drawn per pixel
    // column and look (place, height, colour); the others would only paint over it again
    const narrow = new Set();
    for (const r of lane.rects) {
      const b = rectBox(layout, lane, r, zoom.zx, zy);
      const x0 = Math.max(b.x, layout.left);
      const x1 = Math.min(b.x + b.w, layout.right);
      const y0 = Math.max(b.y, top);
      const y1 = Math.min(b.y + b.h, bottom);
      if (x1 <= x0 || y1 <= y0) continue;
      const a = live && !live.has(r.i) ? COLORS.faded : 1;
      if (x1 - x0 < 1) {
        const key = `${Math.floor(x0 * dpr)} ${Math.round(y0 * dpr)} ${Math.round(y1 * dpr)} ${a} ${r.view ? -1 : r.family === r.i ? 1 : 0} ${r.family}`;
        if (narrow.has(key)) continue;
        narrow.add(key);
      }
      if (a !== alpha) { ctx.globalAlpha = a; alpha = a; }
      if (r.view) {
        ctx.setLineDash([3, 2]);
        ctx.strokeStyle = strokeColor(r.family);
        ctx.lineWidth = 1;
        ctx.strokeRect(x0 + 0.5, y0 + 0.5, Math.max(x1 - x0 - 1, 0.5), Math.max(y1 - y0 - 1, 0.5));
        ctx.setLineDash([]);
      } else {
        const f = fillColor(r.family, r.i);
        if (f !== fill) { ctx.fillStyle = f; fill = f; }
        ctx.fillRect(x0, y0, x1 - x0, y1 - y0);
        if (x1 - x0 > 3 && y1 - y0 > 3) {
          ctx.strokeStyle = strokeColor(r.family);
          ctx.lineWidth = 0.5;
          ctx.strokeRect(x0 + 0.25, y0 + 0.25, x1 - x0 - 0.5, y1 - y0 - 0.5);
        }
      }
    }
  });
  ctx.globalAlpha = 1;
}
