// timeline-canvas.js: draws the timeline's rectangles on a canvas (large plans).
import { rectBox, IDENTITY_Y } from '../core/timeline-layout.js';
import { fillColor, strokeColor, COLORS } from '../core/colors.js';

/**
 * @param {HTMLCanvasElement} canvas
 * @param {object} layout
 * @param {{zx: object, zys: object[]}} zoom
 * @param {object|null} info stepState or null
 */
export function drawCanvas(canvas, layout, zoom, info) {
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
  layout.lanes.forEach((lane, k) => {
    const zy = zoom.zys[k] ?? IDENTITY_Y;
    ctx.save();
    ctx.beginPath();
    ctx.rect(layout.left, lane.top, layout.right - layout.left, lane.height);
    ctx.clip();
    for (const r of lane.rects) {
      const b = rectBox(layout, lane, r, zoom.zx, zy);
      if (b.x + b.w < layout.left || b.x > layout.right || b.y > lane.top + lane.height || b.y + b.h < lane.top) continue;
      ctx.globalAlpha = live && !live.has(r.i) ? COLORS.faded : 1;
      if (r.view) {
        ctx.setLineDash([3, 2]);
        ctx.strokeStyle = strokeColor(r.family);
        ctx.lineWidth = 1;
        ctx.strokeRect(b.x + 0.5, b.y + 0.5, Math.max(b.w - 1, 0.5), Math.max(b.h - 1, 0.5));
        ctx.setLineDash([]);
      } else {
        ctx.fillStyle = fillColor(r.family, r.i);
        ctx.fillRect(b.x, b.y, b.w, b.h);
        if (b.w > 3 && b.h > 3) {
          ctx.strokeStyle = strokeColor(r.family);
          ctx.lineWidth = 0.5;
          ctx.strokeRect(b.x + 0.25, b.y + 0.25, b.w - 0.5, b.h - 0.5);
        }
      }
    }
    ctx.restore();
  });
  ctx.globalAlpha = 1;
}
