// ui-timeline-export.test.js: names on the timeline's rectangles (timeline-labels.js) and the SVG
// export reading on its own (timeline-svg.js): title and subtitle on separate lines, the step
// axis, the names that fit, a legend of the marks drawn (timeline-legend.js).
import { describe, it, expect, beforeAll } from 'vitest';
import { loadGalloc } from '../../web/src/core/galloc.js';
import { normalizeGraph } from '../../web/src/core/graph-model.js';
import { buildModel } from '../../web/src/core/plan-model.js';
import { ggmlSource } from '../../web/src/core/whatif-model.js';
import { timelineLayout, rectBox, IDENTITY_X, IDENTITY_Y } from '../../web/src/core/timeline-layout.js';
import { rectLabels, LABEL_CHAR_PX, LABEL_MIN_HEIGHT } from '../../web/src/core/timeline-labels.js';
import { legendMarks, legendIds, LEGEND } from '../../web/src/core/timeline-legend.js';
import { timelineSvg, timelineSvgSize } from '../../web/src/core/timeline-svg.js';

let g;
beforeAll(async () => { g = await loadGalloc(); });
const modelOf = (doc) => { const d = normalizeGraph(g.normalize(doc)); return ggmlSource(buildModel(d, g.plan(d))); };
const nameOf = (m) => (i) => m.doc.tensors[i].name;
const unzoomed = { zx: IDENTITY_X, zys: [] };

describe('names on rectangles', () => {
  it('every tensor of a teaching scenario is named on its rectangle, inside it', () => {
    const m = modelOf(g.preset('test_reuse_and_free'));
    const L = timelineLayout(m, { width: 900, height: 500 });
    const labels = rectLabels(L, nameOf(m), unzoomed);
    const owners = m.rects.filter((r) => !r.view);
    expect(labels.map((l) => l.text).sort()).toEqual(owners.map((r) => m.doc.tensors[r.i].name).sort());
    for (const l of labels) {
      const k = l.lane;
      const b = rectBox(L, L.lanes[k], m.byTensor[l.i], IDENTITY_X, IDENTITY_Y);
      expect(l.x).toBeGreaterThanOrEqual(b.x);
      expect(l.x + l.text.length * LABEL_CHAR_PX).toBeLessThanOrEqual(b.x + b.w);
      expect(l.y).toBeGreaterThan(b.y);
      expect(l.y).toBeLessThan(b.y + b.h);
    }
  });
  it('a box too short or too narrow gets no name; a long name is cut with an ellipsis', () => {
    const m = modelOf(g.preset('llama-tiny'));
    const L = timelineLayout(m, { width: 700, height: 400 });
    const labels = rectLabels(L, (i) => `${m.doc.tensors[i].name}-a-very-long-suffix-that-cannot-fit-anywhere-at-all`, unzoomed);
    expect(labels.filter((l) => l.text.endsWith('…')).length).toBeGreaterThan(0);
    for (const l of labels) {
      const b = rectBox(L, L.lanes[l.lane], m.byTensor[l.i], IDENTITY_X, IDENTITY_Y);
      expect(b.h).toBeGreaterThanOrEqual(LABEL_MIN_HEIGHT);
      expect(l.text === l.full || (l.text.endsWith('…') && l.full.startsWith(l.text.slice(0, -1)))).toBe(true);
      expect(l.text.length * LABEL_CHAR_PX).toBeLessThanOrEqual(Math.min(b.x + b.w, L.right) - Math.max(b.x, L.left));
    }
    // a wider timeline names more
    const wide = timelineLayout(m, { width: 2400, height: 400 });
    expect(rectLabels(wide, nameOf(m), unzoomed).length).toBeGreaterThan(rectLabels(L, nameOf(m), unzoomed).length);
    expect(rectLabels(L, nameOf(m), unzoomed, { max: 2 }).length).toBeLessThanOrEqual(2);
  });
});

describe('the SVG export', () => {
  it('has its title and subtitle on separate lines, the step axis, the names, and a legend of the marks drawn', () => {
    const m = modelOf(g.preset('test_reuse_and_free'));
    const L = timelineLayout(m, { width: 900, height: 500 });
    const legend = legendMarks(L, m, true, false);
    const svg = timelineSvg(L, m, { ...unzoomed, title: 'test_reuse_and_free', subtitle: 'a caption', legend });
    const y = (cls) => Number(new RegExp(`<text class="${cls}" x="[\\d.]+" y="([\\d.]+)"`).exec(svg)[1]);
    // 13 px title and 11 px subtitle: baselines at least a line apart
    expect(y('subtitle') - y('title')).toBeGreaterThanOrEqual(14);
    expect(svg).toMatch(/<text class="subtitle"[^>]*>a caption · x: step -1 … 5, y: byte offset in the chunk<\/text>/);
    const steps = [...svg.matchAll(/<g class="tick" data-step="(-?\d+)">/g)].map((t) => Number(t[1]));
    expect(steps).toEqual([-1, 0, 1, 2, 3, 4, 5, 6]); // as on screen: step boundaries, 6 the end of the last step
    for (const n of ['x0', 'x1', 'x2', 'x3', 'x4', 'x5', 'x6', 'x8']) expect(svg).toContain(`dy="0.32em">${n}</text>`);
    const items = [...svg.matchAll(/<g class="legend-item" data-id="([^"]+)">/g)].map((t) => t[1]);
    expect(items).toEqual(['family', 'view', 'chunk', 'max']);
    expect(items).toEqual(legendIds(legend));
    for (const id of items) expect(svg).toContain(`>${LEGEND[id].label}</text>`);
    // the document is as tall as its parts: the legend below the lanes
    const { height } = timelineSvgSize(L, m, { legend });
    expect(svg).toContain(`height="${height}"`);
    expect(height).toBeGreaterThan(L.height + 44);
  });
  it('lists only the marks drawn: no view or max line in a plan without them', () => {
    const m = modelOf(g.preset('llama-tiny'));
    const L = timelineLayout(m, { width: 900, height: 500 });
    const ids = legendIds(legendMarks(L, m, false, false));
    expect(ids).toEqual(['family', 'chunk']);
  });
});
