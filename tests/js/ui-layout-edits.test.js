// ui-layout-edits.test.js: timeline geometry, zoom and hit testing; the DAG
// subset; edits of the text made from the other views.
import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { loadGalloc } from '../../web/src/core/galloc.js';
import { normalizeGraph, graphIndex, removeTensors, removeBufferType } from '../../web/src/core/graph-model.js';
import { buildModel } from '../../web/src/core/plan-model.js';
import {
  timelineLayout, rectBox, hitTest, zoomXBy, zoomYBy, baseX, stepAtBaseX, carryZoom, movedLanePlot, zoomX, byteY, IDENTITY_X, IDENTITY_Y,
} from '../../web/src/core/timeline-layout.js';
import { timelineSvg } from '../../web/src/core/timeline-svg.js';
import { dagSubset, layoutDag } from '../../web/src/core/dag-layout.js';
import { parseGraphText, graphToText } from '../../web/src/core/graph-text.js';
import { setBufferLine, setTensorBuffer, rewireSource, insertTensor, renumberRefs, dependents } from '../../web/src/core/text-edits.js';

const golden = (f) => JSON.parse(readFileSync(new URL(`../golden/${f}`, import.meta.url), 'utf8'));
let g;
beforeAll(async () => { g = await loadGalloc(); });
const modelOf = (doc) => { const d = normalizeGraph(g.normalize(doc)); return buildModel(d, g.plan(d)); };

describe('timeline layout', () => {
  it('makes one lane per chunk, sections per buffer type, and x columns per step', () => {
    const m = modelOf(g.preset('test_multiple_buffer_types'));
    const L = timelineLayout(m, { width: 1000 });
    expect(L.sections.map((s) => s.buffer)).toEqual([0, 1]);
    expect(L.lanes.map((l) => [l.buffer, l.chunk])).toEqual(m.buffers.flatMap((b) => b.chunkSizes.map((_, c) => [b.index, c])));
    expect(baseX(L, -1)).toBe(L.left);
    expect(baseX(L, L.steps)).toBeCloseTo(L.right);
    expect(stepAtBaseX(L, baseX(L, 3) + 1)).toBe(3);
    const counted = L.lanes.reduce((a, l) => a + l.rects.length, 0);
    expect(counted).toBe(m.rects.length);
  });
  it('hit-tests the rect under a point, with and without zoom', () => {
    const m = modelOf(g.preset('test_reuse_and_free'));
    const L = timelineLayout(m, { width: 800 });
    for (const r of m.rects.filter((x) => !x.view)) {
      const k = L.lanes.findIndex((l) => l.buffer === r.buffer && l.chunk === r.chunk);
      const b = rectBox(L, L.lanes[k], r, IDENTITY_X, IDENTITY_Y);
      expect(hitTest(L, IDENTITY_X, [], b.x + b.w / 2, b.y + b.h * 0.9)).toBe(r.i);
    }
    const zx = zoomXBy(IDENTITY_X, 4, -3 * 400, L);
    const zys = [zoomYBy(IDENTITY_Y, 2, -(L.lanes[0].top + L.lanes[0].height), L.lanes[0])];
    const r = m.byTensor[m.doc.tensors.findIndex((t) => t.name === 'x5')];
    const b = rectBox(L, L.lanes[0], r, zx, zys[0]);
    expect(hitTest(L, zx, zys, b.x + Math.min(b.w / 2, 5), b.y + b.h * 0.95)).toBe(r.i);
    expect(hitTest(L, IDENTITY_X, [], 2, 2)).toBe(-1);
  });
  it('keeps zoom inside the plot', () => {
    const m = modelOf(g.preset('test_reuse_and_free'));
    const L = timelineLayout(m, { width: 800 });
    expect(zoomXBy(IDENTITY_X, 0.5, 100, L)).toEqual(IDENTITY_X);
    const z = zoomXBy(IDENTITY_X, 2, -400, L);
    expect(z.k).toBe(2);
    expect(zoomXBy(z, 1, 1e6, L).x).toBe(L.left - 2 * L.left);
    const lane = L.lanes[0];
    expect(zoomYBy(IDENTITY_Y, 1, 50, lane)).toEqual({ k: 1, t: 0 });
    expect(zoomYBy(IDENTITY_Y, 3, 0, lane).k).toBe(3);
  });
  it('keeps the zoom across a new plan where it still means the same steps and bytes', () => {
    const doc = g.preset('test_max_size_too_many_tensors');
    const L = timelineLayout(modelOf(doc), { width: 800 });
    const zoom = { zx: zoomXBy(IDENTITY_X, 2, -400, L), zys: L.lanes.map((l) => zoomYBy(IDENTITY_Y, 2, -(l.top + l.height), l)) };
    expect(carryZoom(null, L, zoom)).toEqual({ zx: IDENTITY_X, zys: [] });
    // the same plan redrawn (e.g. the views switch): everything kept
    const again = timelineLayout(modelOf(doc), { width: 800 });
    expect(carryZoom(L, again, zoom)).toEqual(zoom);
    // another max size: the steps stay, the chunks change, so the byte zoom starts over
    const bigger = { ...doc, buffer_types: doc.buffer_types.map((b) => ({ ...b, max_size: null })) };
    const L2 = timelineLayout(modelOf(bigger), { width: 800 });
    expect(L2.lanes.length).not.toBe(L.lanes.length);
    const kept = carryZoom(L, L2, zoom);
    expect(kept.zx).toEqual(zoom.zx);
    expect(kept.zys.every((z) => z === IDENTITY_Y)).toBe(true);
    // another width: the same steps stay in view; another number of steps: the step zoom starts over
    const wide = timelineLayout(modelOf(doc), { width: 900 });
    const kept2 = carryZoom(L, wide, zoom).zx;
    expect(kept2.k).toBe(zoom.zx.k);
    expect(stepAtBaseX(wide, (wide.left - kept2.x) / kept2.k)).toBe(stepAtBaseX(L, (L.left - zoom.zx.x) / zoom.zx.k));
    expect(carryZoom(L, { ...wide, steps: wide.steps - 1 }, zoom).zx).toEqual(IDENTITY_X);
  });
  it('moves a lane drawn at one zoom to another so that every rectangle lands on its box at the new zoom', () => {
    const m = modelOf(g.preset('llama-tiny'));
    const L = timelineLayout(m, { width: 900, height: 500 });
    const zooms = [[IDENTITY_X, IDENTITY_Y]];
    let zx = IDENTITY_X;
    let zy = IDENTITY_Y;
    for (const [f, c] of [[2.5, -300], [0.7, 40], [1, 55], [3, -800]]) {
      zx = zoomXBy(zx, f, c, L);
      zy = zoomYBy(zy, f > 1 ? 1.8 : 0.9, c / 10, L.lanes[0]);
      zooms.push([zx, zy]);
    }
    const lane = L.lanes[0];
    const plot = { x: L.left, y: lane.top, w: L.right - L.left, h: lane.height };
    for (const [zx0, zy0] of zooms) {
      for (const [zx1, zy1] of zooms) {
        const to = movedLanePlot(L, lane, zx0, zy0, zx1, zy1);
        // the old plot's pixels map linearly onto `to`: every rectangle's edges drawn at the old
        // zoom land on its edges at the new one
        const mx = (x) => to.x + ((x - plot.x) / plot.w) * to.w;
        const my = (y) => to.y + ((y - plot.y) / plot.h) * to.h;
        for (const r of lane.rects.slice(0, 40)) {
          const xs = [r.first, (r.view ? r.last : r.end) + 1].map((st) => baseX(L, st));
          const ys = [r.offset, r.offset + r.size];
          for (const x of xs) expect(mx(zoomX(zx0, x))).toBeCloseTo(zoomX(zx1, x), 6);
          for (const b of ys) expect(my(byteY(lane, zy0, b))).toBeCloseTo(byteY(lane, zy1, b), 6);
        }
      }
    }
  });
  it('exports SVG with names escaped', () => {
    const doc = { tensors: [{ name: '<b>&"x"', op: 'NONE', type: 'f32', ne: [4], flags: ['input'] },
      { name: 'y', op: 'SCALE', type: 'f32', ne: [4], src: [0] }], outputs: [1] };
    const m = modelOf(doc);
    const L = timelineLayout(m, { width: 600 });
    const svg = timelineSvg(L, m, { zx: IDENTITY_X, zys: [], title: '<t>' });
    expect(svg).toContain('&lt;b&gt;&amp;&quot;x&quot;');
    expect(svg).not.toContain('<b>');
    expect(svg.startsWith('<svg')).toBe(true);
  });
  it('exports SVG with each lane\'s byte axis at round binary ticks, placed where the bytes are', () => {
    const UNITS = { B: 1, KiB: 2 ** 10, MiB: 2 ** 20, GiB: 2 ** 30 };
    for (const name of ['llama-tiny', 'test_multiple_buffer_types']) {
      const m = modelOf(g.preset(name));
      const L = timelineLayout(m, { width: 900, height: 500 });
      const svg = timelineSvg(L, m, { zx: IDENTITY_X, zys: [] });
      const axes = [...svg.matchAll(/<g class="byte-axis"[^>]*>([\s\S]*?)<\/g>\n(?!<g class="tick")/g)];
      const lanes = L.lanes.filter((l) => l.height > 0);
      expect(axes.length, name).toBe(lanes.length);
      lanes.forEach((lane, k) => {
        const ticks = [...axes[k][1].matchAll(/data-bytes="(\d+)"><line [^>]*y1="([\d.]+)"[^>]*\/><text [^>]*>([^<]+)<\/text>/g)]
          .map(([, b, y, label]) => ({ bytes: Number(b), y: Number(y), label }));
        expect(ticks.length, `${name} lane ${k}`).toBeGreaterThanOrEqual(2);
        // one power-of-two step from 0, each label the exact value in a binary unit
        const step = ticks[1].bytes - ticks[0].bytes;
        expect(Number.isInteger(Math.log2(step)), `${name} step ${step}`).toBe(true);
        ticks.forEach((t, i) => {
          expect(t.bytes).toBe(i * step);
          const [, num, unit] = /^([\d.]+)(?: (\w+))?$/.exec(t.label);
          expect(t.label === '0' ? 0 : Number(num) * UNITS[unit ?? 'B'], t.label).toBe(t.bytes);
          // linear, unzoomed: offset 0 at the lane's bottom, the lane's domain at its top
          expect(t.y).toBeCloseTo(lane.top + lane.height - (t.bytes / lane.domain) * lane.height, 1);
        });
        expect(ticks.at(-1).bytes).toBeLessThanOrEqual(lane.domain);
      });
    }
  });
});

describe('graph view', () => {
  it('shows small graphs whole and big ones as a neighbourhood', () => {
    const small = normalizeGraph(golden('test_view_inplace.graph.json'));
    expect(dagSubset(small, graphIndex(small).consumers, { center: null }).mode).toBe('full');
    const big = normalizeGraph(golden('llama-7b-like.graph.json'));
    const sub = dagSubset(big, graphIndex(big).consumers, { center: big.nodes[100], max: 60 });
    expect(sub.mode).toBe('focus');
    expect(sub.ids).toContain(big.nodes[100]);
    expect(sub.ids.length).toBeLessThanOrEqual(60);
    const lay = layoutDag(big, sub.ids);
    expect(lay.nodes).toHaveLength(sub.ids.length);
    for (const l of lay.links) expect(big.tensors[l.to].src[l.slot]).toBe(l.from);
  });
});

describe('text edits', () => {
  const base = '@name t\n@buffer cpu align=32\n\nx0 = input(f32, 8) # first\nx1 = input(f32, 8)\nx2 = add(x0, x1)\nx3 = scale($2)\noutput(x3)\n';
  const parsed = () => parseGraphText(base);
  it('changes a buffer line, or adds one', () => {
    const { doc, meta } = parsed();
    const types = [{ ...doc.buffer_types[0], max_size: 16384 }, { name: 'gpu', alignment: 256, max_size: null }];
    const t1 = setBufferLine(base, meta, 0, types);
    expect(t1.split('\n')[1]).toBe('@buffer cpu align=32 max=16KiB');
    const t2 = setBufferLine(base, meta, 1, types);
    expect(t2.split('\n').slice(1, 3)).toEqual(['@buffer cpu align=32', '@buffer gpu align=256']);
    const r = parseGraphText(t2);
    expect(r.doc.buffer_types).toHaveLength(2);
  });
  it('assigns a statement to a buffer type and back, keeping comments', () => {
    const { meta } = parsed();
    const t1 = setTensorBuffer(base, meta, 0, 'gpu');
    expect(t1.split('\n')[3]).toBe('x0 = input(f32, 8) @gpu # first');
    const two = t1.replace('@buffer cpu align=32', '@buffer cpu align=32\n@buffer gpu align=8');
    const m1 = parseGraphText(two);
    expect(m1.doc.leaf_buffer_ids).toEqual([1, 0]);
    const t2 = setTensorBuffer(two, m1.meta, 0, null);
    expect(t2.split('\n')[4]).toBe('x0 = input(f32, 8) # first');
  });
  it('rewires a source slot', () => {
    const { meta } = parsed();
    const t = rewireSource(base, meta, 2, 1, 'x0');
    expect(t.split('\n')[5]).toBe('x2 = add(x0, x0)');
    const sr = parseGraphText('k = weight(f32, 4, 2)\nr = input(f32, 4)\ni = input(i64, 1)\nj = input(i64, 1)\ns = set_rows(k, r, i)\n');
    const t2 = rewireSource('k = weight(f32, 4, 2)\nr = input(f32, 4)\ni = input(i64, 1)\nj = input(i64, 1)\ns = set_rows(k, r, i)\n', sr.meta, 4, 1, 'j');
    expect(t2.split('\n')[4]).toBe('s = set_rows(k, r, j)');
  });
  it('inserts a statement and shifts $N references', () => {
    const { meta } = parsed();
    const { text, index } = insertTensor(base, meta, 0, 'y = scale(x0)');
    expect(index).toBe(1);
    expect(text).toContain('x3 = scale($3)');
    const r = parseGraphText(text);
    expect(r.doc.tensors.map((t) => t.name)).toEqual(['x0', 'y', 'x1', 'x2', 'x3']);
    expect(r.doc.tensors[4].src).toEqual([3]);
    expect(renumberRefs('a = f($1, "$1") # $1', (n) => n + 5)).toBe('a = f($6, "$1") # $1');
  });
  it('removes a tensor with its dependents, at the document level', () => {
    const { doc } = parsed();
    const d = normalizeGraph(doc);
    expect(dependents(d, 1)).toEqual([1, 2, 3]);
    const rest = removeTensors(d, dependents(d, 1));
    expect(rest.tensors.map((t) => t.name)).toEqual(['x0']);
    expect(rest.leafs).toEqual([0]);
    expect(rest.nodes).toEqual([]);
    g.normalize(rest); // the C reader takes it
    expect(parseGraphText(graphToText(rest)).doc.tensors).toHaveLength(1);
  });
  it('removes a buffer type, moving its tensors to the previous one', () => {
    const d = normalizeGraph(golden('test_multiple_buffer_types.graph.json'));
    const one = removeBufferType(d, 1);
    expect(one.buffer_types).toHaveLength(1);
    expect(one.node_buffer_ids.every((b) => b === 0)).toBe(true);
    expect(g.plan(one).buffers).toHaveLength(1);
  });
});
