// timeline-svg.js: the timeline as a standalone SVG document (for export, and the PNG drawn from it).
//
// Built from the same layout as the screen, at the current zoom, as a string; every name from
// the document is XML-escaped, never markup. It reads on its own: a title and, on its own line
// below, what the axes are; the step axis with the screen's ticks; each lane's byte axis at the
// same round binary ticks (laneByteTicks); the tensors' names where they fit (rectLabels, as on
// screen); and under the lanes a legend of the marks drawn (timeline-legend.js's words).

import { scaleLinear } from 'd3-scale';
import { rectBox, byteY, baseX, zoomX, laneByteTicks, IDENTITY_Y } from './timeline-layout.js';
import { rectLabels } from './timeline-labels.js';
import { LEGEND, legendIds } from './timeline-legend.js';
import { fillColor, strokeColor, COLORS } from './colors.js';
import { formatBytes } from './format.js';

/** px above the layout: the title's line and the subtitle's */
const HEAD = 44;
/** px: a legend row; a legend swatch's width; px per character of legend text (11 px sans-serif) */
const LEGEND_ROW = 18;
const SWATCH = 26;
const LEGEND_CHAR_PX = 6.4;

// text for XML 1.0: markup escaped; characters XML cannot hold at all (C0 controls but tab, LF,
// CR; lone surrogates; U+FFFE/U+FFFF) become U+FFFD, so names holding U+0001/U+0007/U+001B still
// give a well-formed file
const esc = (s) => String(s)
  .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD')
  .replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));

/** the legend's entries placed in rows across the width: [{id, x, row}] */
function legendPlaces(layout, legend) {
  const places = [];
  let x = 8;
  let row = 0;
  for (const id of legendIds(legend)) {
    const w = SWATCH + 4 + LEGEND[id].label.length * LEGEND_CHAR_PX + 14;
    if (x + w > layout.width - 8 && x > 8) { row++; x = 8; }
    places.push({ id, x, row });
    x += w;
  }
  return places;
}

/**
 * The exported document's size: the layout with the title lines above and the legend below.
 * @param {object} layout
 * @param {object} model
 * @param {{legend?: object}} view
 * @returns {{width: number, height: number}}
 */
export function timelineSvgSize(layout, model, { legend = null } = {}) {
  const rows = legend ? Math.max(0, ...legendPlaces(layout, legend).map((p) => p.row)) + 1 : 0;
  return { width: layout.width, height: HEAD + layout.height + rows * LEGEND_ROW + (rows ? 8 : 0) };
}

/** a legend entry's swatch at (x, y) (y: the row's middle) */
function swatch(id, x, y) {
  const r = (attrs) => `<rect x="${x + 2}" y="${y - 4.5}" width="${SWATCH - 4}" height="9" ${attrs}/>`;
  const line = (stroke, dash) => `<line x1="${x + 1}" x2="${x + SWATCH - 1}" y1="${y}" y2="${y}" stroke="${stroke}"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`;
  switch (id) {
    case 'family': return `<rect x="${x + 1}" y="${y - 4.5}" width="11" height="9" fill="${fillColor(3, 3)}"/><rect x="${x + 13}" y="${y - 4.5}" width="11" height="9" fill="${fillColor(3, 4)}"/>`;
    case 'item': return r(`fill="${fillColor(5, 5)}"`);
    case 'view': return r(`fill="none" stroke="${strokeColor(3)}" stroke-dasharray="3 2"`);
    case 'chunk': return line(COLORS.chunkLine);
    case 'max': return line(COLORS.maxLine, '6 3');
    case 'capacity': return line(COLORS.capacityLine, '2 3');
    default: return r(`fill="none" stroke="${COLORS.cursor}"`);
  }
}

/**
 * @param {object} layout timelineLayout(...)
 * @param {object} model buildModel(...), or any timeline source (whatif-model.js) with label(i)
 * @param {{zx: object, zys: object[], title?: string, subtitle?: string, legend?: object}} view
 *   legend: legendMarks(...) of the marks drawn (none: no legend)
 * @returns {string} an SVG document
 */
export function timelineSvg(layout, model, { zx, zys, title = '', subtitle = '', legend = null }) {
  const out = [];
  const { width: W, height: H } = timelineSvgSize(layout, model, { legend });
  const nameOf = (i) => (model.label ? model.label(i) : model.doc.tensors[i].name);
  const axes = `x: step ${-1} … ${layout.steps - 1}, y: byte offset in the chunk`;
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="11">`);
  out.push(`<rect width="${W}" height="${H}" fill="#fff"/>`);
  out.push(`<text class="title" x="8" y="17" font-size="13" font-weight="bold">${esc(title)}</text>`);
  out.push(`<text class="subtitle" x="8" y="35" fill="#4b5563">${esc(subtitle ? `${subtitle} · ${axes}` : axes)}</text>`);
  out.push(`<g class="body" transform="translate(0 ${HEAD})">`);
  for (const s of layout.sections) {
    const b = model.buffers[s.buffer];
    const n = b.chunkSizes.length;
    const text = `${b.name}: ${formatBytes(b.size)} in ${n} chunk${n === 1 ? '' : 's'}${b.maxSize ? ` · max ${formatBytes(b.maxSize)}` : ''}${s.empty ? ' — no memory needed' : ''}`;
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
  // the names that fit, as on screen
  out.push('<g class="rect-labels" font-size="10" fill="#111827">');
  for (const l of rectLabels(layout, nameOf, { zx, zys })) {
    out.push(`<text x="${l.x.toFixed(2)}" y="${l.y.toFixed(2)}" dy="0.32em">${esc(l.text)}</text>`);
  }
  out.push('</g>');
  // the step axis over the steps in view, ticked as the screen's (whole steps only)
  const axisY = layout.sections[0] ? layout.sections[0].top - 4 : 24;
  const all = scaleLinear().domain([-1, layout.steps]).range([zoomX(zx, baseX(layout, -1)), zoomX(zx, baseX(layout, layout.steps))]);
  const xs = all.copy().domain([all.invert(layout.left), all.invert(layout.right)]).range([layout.left, layout.right]);
  const ticks = xs.ticks(Math.max(2, Math.floor((layout.right - layout.left) / 70))).filter(Number.isInteger);
  out.push(`<g class="step-axis" stroke="#6b7280" fill="#6b7280" font-size="10"><line x1="${layout.left}" x2="${layout.right}" y1="${axisY}" y2="${axisY}"/>`);
  for (const t of ticks) {
    const x = xs(t).toFixed(2);
    out.push(`<g class="tick" data-step="${t}"><line x1="${x}" x2="${x}" y1="${axisY - 5}" y2="${axisY}"/><text x="${x}" y="${axisY - 7}" text-anchor="middle" stroke="none">${t}</text></g>`);
  }
  out.push('</g>');
  out.push('</g>');
  // the legend: the marks drawn
  if (legend) {
    out.push(`<g class="legend" transform="translate(0 ${HEAD + layout.height})">`);
    for (const p of legendPlaces(layout, legend)) {
      const y = p.row * LEGEND_ROW + 10;
      out.push(`<g class="legend-item" data-id="${p.id}">${swatch(p.id, p.x, y)}<text x="${p.x + SWATCH + 4}" y="${y}" dy="0.32em" fill="#374151">${esc(LEGEND[p.id].label)}</text></g>`);
    }
    out.push('</g>');
  }
  out.push('</svg>');
  return out.join('\n');
}
