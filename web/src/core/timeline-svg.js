// timeline-svg.js: the timeline as a standalone SVG document (for export).
//
// Built from the same layout as the screen, at the current zoom, as a
// string; every name from the document is XML-escaped, never markup. Each lane
// has the screen's byte axis: the same round binary ticks (laneByteTicks).

import { rectBox, byteY, baseX, zoomX, laneByteTicks, IDENTITY_Y } from './timeline-layout.js';
import { fillColor, strokeColor, COLORS } from './colors.js';
import { formatBytes } from './format.js';

// text for XML 1.0: markup escaped; characters XML cannot hold at all (C0 controls but tab, LF,
// CR; lone surrogates; U+FFFE/U+FFFF) become U+FFFD, so names holding U+0001/U+0007/U+001B still
// give a well-formed file
const esc = (s) => String(s)
  .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
  .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));

/**
 * @param {object} layout timelineLayout(...)
 * @param {object} model buildModel(...), or any timeline source (whatif-model.js) with label(i)
 * @param {{zx: object, zys: object[], title?: string}} view
 * @returns {string} an SVG document
 */
export function timelineSvg(layout, model, { zx, zys, title = '' }) {
  const out = [];
  const W = layout.width;
  const H = layout.height;
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`);
  out.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  if (title) out.push(`<text x="8" y="16" font-size="13" font-weight="bold">${esc(title)}</text>`);
  for (const s of layout.sections) {
    const b = model.buffers[s.buffer];
    const text = `${b.name}: ${formatBytes(b.size)} in ${b.chunkSizes.length} chunk(s)${s.empty ? ' — no memory needed' : ''}`;
    out.push(`<text x="8" y="${s.top + 15}" font-weight="bold">${esc(text)}</text>`);
  }
  layout.lanes.forEach((lane, k) => {
    const zy = zys[k] ?? IDENTITY_Y;
    const id = `lane${k}`;
    out.push(`<clipPath id="${id}"><rect x="${layout.left}" y="${lane.top}" width="${layout.right - layout.left}" height="${lane.height}"/></clipPath>`);
    out.push(`<rect x="${layout.left}" y="${lane.top}" width="${layout.right - layout.left}" height="${lane.height}" fill="#f8fafc" stroke="#e5e7eb"/>`);
    out.push(`<text x="${layout.right}" y="${lane.top - 3}" text-anchor="end" fill="#374151">chunk ${lane.chunk} · ${esc(formatBytes(lane.size))}</text>`);
    const bottom = lane.top + lane.height;
    out.push(`<g class="byte-axis" stroke="#6b7280" fill="#6b7280" font-size="10"><line x1="${layout.left}" x2="${layout.left}" y1="${lane.top}" y2="${bottom}"/>`);
    for (const t of laneByteTicks(lane, zy)) {
      const y = t.y.toFixed(2);
      out.push(`<g class="tick" data-bytes="${t.bytes}"><line x1="${layout.left - 5}" x2="${layout.left}" y1="${y}" y2="${y}"/><text x="${layout.left - 8}" y="${y}" dy="0.32em" text-anchor="end" stroke="none">${esc(t.label)}</text></g>`);
    }
    out.push('</g>');
    out.push(`<g clip-path="url(#${id})">`);
    for (const r of lane.rects) {
      const bx = rectBox(layout, lane, r, zx, zy);
      if (bx.x + bx.w < layout.left || bx.x > layout.right) continue;
      const name = esc(model.label ? model.label(r.i) : model.doc.tensors[r.i].name);
      if (r.view) {
        out.push(`<rect x="${bx.x.toFixed(2)}" y="${bx.y.toFixed(2)}" width="${bx.w.toFixed(2)}" height="${bx.h.toFixed(2)}" fill="none" stroke="${strokeColor(r.family)}" stroke-dasharray="3 2"><title>${name}</title></rect>`);
      } else {
        out.push(`<rect x="${bx.x.toFixed(2)}" y="${bx.y.toFixed(2)}" width="${bx.w.toFixed(2)}" height="${bx.h.toFixed(2)}" fill="${fillColor(r.family, r.i)}" stroke="${strokeColor(r.family)}" stroke-width="0.5"><title>${name}</title></rect>`);
      }
    }
    const cy = byteY(lane, zy, lane.size);
    out.push(`<line x1="${layout.left}" x2="${layout.right}" y1="${cy}" y2="${cy}" stroke="${COLORS.chunkLine}"/>`);
    if (lane.maxSize && lane.maxSize <= lane.domain) {
      const my = byteY(lane, zy, lane.maxSize);
      out.push(`<line x1="${layout.left}" x2="${layout.right}" y1="${my}" y2="${my}" stroke="${COLORS.maxLine}" stroke-dasharray="6 3"/>`);
    }
    if (lane.capacity && lane.capacity <= lane.domain) {
      const capY = byteY(lane, zy, lane.capacity);
      out.push(`<line x1="${layout.left}" x2="${layout.right}" y1="${capY}" y2="${capY}" stroke="${COLORS.capacityLine}" stroke-dasharray="2 3"/>`);
    }
    out.push('</g>');
  });
  const x0 = zoomX(zx, baseX(layout, -1));
  out.push(`<text x="${Math.max(layout.left, x0)}" y="${layout.sections[0] ? layout.sections[0].top - 6 : 12}" fill="#6b7280">steps -1 … ${layout.steps - 1}</text>`);
  out.push('</svg>');
  return out.join('\n');
}
