// ui-readability.test.js: what keeps the views readable: round binary byte ticks written
// exactly, lanes that share the height available, log and piecewise byte scales (every
// rectangle still hit where it is drawn), graph views that cut no box at their edges,
// tooltips inside the viewport; finding a tensor by name, zooming to a range of steps (forgotten
// when another graph is loaded).
import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { loadGalloc } from '../../web/src/core/galloc.js';
import { normalizeGraph, graphIndex } from '../../web/src/core/graph-model.js';
import { buildModel } from '../../web/src/core/plan-model.js';
import { binaryTicks, spacedBinaryTicks, formatTickBytes } from '../../web/src/core/byte-ticks.js';
import {
  timelineLayout, rectBox, hitTest, laneV, laneBytes, byteY, zoomToSteps, panToSteps, stepAtBaseX, unzoomX,
  MIN_LANE_HEIGHT, IDENTITY_X, IDENTITY_Y,
} from '../../web/src/core/timeline-layout.js';
import { findTensors } from '../../web/src/core/tensor-search.js';
import { layerSteps, layerLabel } from '../../web/src/core/layer-steps.js';
import { dagSubset, layoutDag, frameView } from '../../web/src/core/dag-layout.js';
import { tooltipPlace } from '../../web/src/core/tooltip-place.js';
import * as ui from '../../web/src/state.js';

const golden = (f) => JSON.parse(readFileSync(new URL(`../golden/${f}`, import.meta.url), 'utf8'));
let g;
beforeAll(async () => { g = await loadGalloc(); });
const modelOf = (doc) => { const d = normalizeGraph(doc); return buildModel(d, g.plan(d)); };

/** a value is a round binary tick when it is k * 2^e with k < 16 (0, 4 KiB, 12 KiB, 768 MiB ...) */
const round = (v) => { let x = v; while (x >= 16 && x % 2 === 0) x /= 2; return v === 0 || x < 16; };

describe('byte ticks', () => {
  it('step by a power of two, at most the count asked for', () => {
    for (const [hi, n] of [[21696 * 1.04, 4], [1.05 * 2 ** 30, 8], [40, 4], [24, 3], [1, 4], [5e12, 6]]) {
      const { step, ticks } = binaryTicks(0, hi, n);
      expect(Math.log2(step) % 1).toBe(0);
      expect(ticks.length - 1).toBeLessThanOrEqual(n);
      expect(ticks.length).toBeGreaterThanOrEqual(2);
      for (const v of ticks) expect(v % step).toBe(0);
      expect(step / 2 >= 1 ? (hi - 0) / (step / 2) > n : true).toBe(true); // the smallest such step
    }
    expect(binaryTicks(0, 21696 * 1.04, 4).ticks.map(formatTickBytes)).toEqual(['0', '8 KiB', '16 KiB']);
    expect(binaryTicks(0, 1.05 * 2 ** 30, 8).ticks.map(formatTickBytes)).toEqual(['0', '256 MiB', '512 MiB', '768 MiB', '1 GiB']);
    expect(binaryTicks(0, 2 ** 30, 8).ticks.map(formatTickBytes)).toEqual(['0', '128 MiB', '256 MiB', '384 MiB', '512 MiB', '640 MiB', '768 MiB', '896 MiB', '1 GiB']);
    expect(binaryTicks(0, 40, 4).ticks.map(formatTickBytes)).toEqual(['0', '16 B', '32 B']);
    expect(binaryTicks(1000, 1003, 8).ticks).toEqual([1000, 1001, 1002, 1003]); // never below a byte
  });
  it('are written exactly in the largest unit that needs at most three decimals', () => {
    expect([0, 1000, 4096, 1536, 1572864, 805306368, 2 ** 30, 1.125 * 2 ** 30, 2 ** 30 + 2 ** 20 / 16, 3 * 2 ** 40].map(formatTickBytes))
      .toEqual(['0', '1000 B', '4 KiB', '1.5 KiB', '1.5 MiB', '768 MiB', '1 GiB', '1.125 GiB', '1048640 KiB', '3 TiB']);
  });
  it('on any monotone scale: round values, far enough apart, ascending', () => {
    const px = (v) => 500 - 500 * (Math.log1p(v / 2 ** 20) / Math.log1p(2 ** 30 / 2 ** 20));
    const t = spacedBinaryTicks(0, 2 ** 30, px, 20);
    expect(t[0]).toBe(0);
    expect(t).toContain(2 ** 30);
    for (let k = 1; k < t.length; k++) {
      expect(t[k]).toBeGreaterThan(t[k - 1]);
      expect(Math.abs(px(t[k]) - px(t[k - 1]))).toBeGreaterThanOrEqual(20);
    }
    for (const v of t) expect(round(v)).toBe(true);
  });
});

describe('lanes and byte scales', () => {
  it('share the height available, never below the minimum', () => {
    const m = modelOf(g.preset('test_multiple_buffer_types')); // 3 lanes over 2 buffer types
    const L = timelineLayout(m, { width: 1000, height: 900 });
    expect(L.lanes).toHaveLength(3);
    expect(L.height).toBeLessThanOrEqual(900);
    expect(L.height).toBeGreaterThan(900 - L.lanes.length); // the rounding down of each lane's share
    const small = timelineLayout(m, { width: 1000, height: 100 });
    for (const l of small.lanes) expect(l.height).toBe(MIN_LANE_HEIGHT);
    // every lane label strip sits above its lane, below the one before
    for (let k = 1; k < L.lanes.length; k++) expect(L.lanes[k].top).toBeGreaterThan(L.lanes[k - 1].top + L.lanes[k - 1].height);
  });
  for (const scale of ['linear', 'log', 'piecewise']) {
    it(`${scale}: monotone, inverse of itself, and every rectangle is hit where it is drawn`, () => {
      const m = modelOf(golden('llama-tiny.graph.json'));
      const L = timelineLayout(m, { width: 900, height: 700, scale });
      const lane = L.lanes[0];
      expect(laneV(lane, 0)).toBeCloseTo(0, 9);
      expect(laneV(lane, lane.domain)).toBeCloseTo(lane.height, 6);
      let prev = -1;
      for (let b = 0; b <= lane.domain; b += lane.domain / 97) {
        const v = laneV(lane, b);
        expect(v).toBeGreaterThanOrEqual(prev);
        prev = v;
        expect(laneBytes(lane, v)).toBeCloseTo(b, 3);
      }
      for (const r of m.rects.filter((x) => !x.view)) {
        const b = rectBox(L, lane, r, IDENTITY_X, IDENTITY_Y);
        const hit = hitTest(L, IDENTITY_X, [], b.x + b.w / 2, b.y + b.h / 2);
        expect(hit === r.i || m.byTensor[hit].view).toBe(true); // a view drawn over it wins
        expect(hitTest(L, IDENTITY_X, [], b.x + b.w / 2, b.y - 3)).not.toBe(r.i);
      }
    });
  }
  it('log and piecewise make room for the tensors beside a huge one (llama-3.1-70b-c8192)', () => {
    const m = modelOf(g.preset('llama-3.1-70b-c8192'));
    const huge = m.rects.reduce((a, r) => (!r.view && r.size > a.size ? r : a)); // result_output, f32 [128256, 512]
    const heights = (scale) => {
      const L = timelineLayout(m, { width: 1200, height: 600, scale });
      const hs = m.rects.filter((r) => !r.view && r.size < huge.size).map((r) => rectBox(L, L.lanes[0], r, IDENTITY_X, IDENTITY_Y).h);
      hs.sort((x, y) => x - y);
      return { median: hs[hs.length >> 1], p10: hs[Math.floor(hs.length / 10)], huge: rectBox(L, L.lanes[0], huge, IDENTITY_X, IDENTITY_Y).h / L.lanes[0].height };
    };
    const lin = heights('linear');
    expect(lin.huge).toBeGreaterThan(0.8);
    // log: the huge tensor gives most of the lane back; piecewise: the others are drawn taller
    expect(heights('log').huge).toBeLessThan(0.5);
    const pw = heights('piecewise');
    expect(pw.median).toBeGreaterThan(1.5 * lin.median);
    expect(pw.p10).toBeGreaterThan(3 * lin.p10);
    const L = timelineLayout(m, { width: 1200, height: 600, scale: 'piecewise' });
    expect(byteY(L.lanes[0], IDENTITY_Y, L.lanes[0].size)).toBeGreaterThan(L.lanes[0].top); // the chunk line inside its lane
  });
});

describe('graph view framing', () => {
  const cut = (nodes, v, o) => nodes.some((n) => {
    const l = v.x + (n.x - o.nodeWidth / 2) * v.k;
    const r = v.x + (n.x + o.nodeWidth / 2) * v.k;
    const t = v.y + (n.y - o.nodeHeight / 2) * v.k;
    const b = v.y + (n.y + o.nodeHeight / 2) * v.k;
    const crossesX = (l < 0 && r > 0) || (l < o.viewWidth && r > o.viewWidth);
    const crossesY = (t < 0 && b > 0) || (t < o.viewHeight && b > o.viewHeight);
    const inX = r > 0 && l < o.viewWidth;
    const inY = b > 0 && t < o.viewHeight;
    return (crossesX && inY) || (crossesY && inX);
  });
  it('cuts no box at the edges of views of many sizes, and keeps the focus in view', () => {
    const d = normalizeGraph(golden('llama-tiny.graph.json'));
    const lay = layoutDag(d, dagSubset(d, graphIndex(d).consumers, { center: null }).ids);
    const top = lay.nodes.reduce((a, b) => (b.y < a.y ? b : a));
    for (const [vw, vh] of [[460, 400], [600, 380], [900, 700], [350, 300]]) {
      const o = { nodeWidth: 150, nodeHeight: 40, width: lay.width, height: lay.height, viewWidth: vw, viewHeight: vh, minScale: 0.6 };
      const v = frameView(lay.nodes, { ...o, focus: top, top: true });
      expect(v.whole).toBe(false);
      expect(v.cuts).toBe(false);
      expect(v.k).toBeGreaterThanOrEqual(0.6);
      expect(cut(lay.nodes, v, o)).toBe(false);
      const fx = v.x + top.x * v.k;
      expect(fx).toBeGreaterThan(0);
      expect(fx).toBeLessThan(vw);
      // around a node deep in the graph, at a given scale
      const deep = lay.nodes[lay.nodes.length - 5];
      const w = frameView(lay.nodes, { ...o, scale: 0.8, focus: deep });
      expect(w.k).toBe(0.8);
      if (!w.cuts) expect(cut(lay.nodes, w, o)).toBe(false);
      const dx = w.x + deep.x * w.k;
      const dy = w.y + deep.y * w.k;
      expect(dx > 0 && dx < vw && dy > 0 && dy < vh).toBe(true);
    }
  });
  it('shows a small graph whole', () => {
    const d = normalizeGraph(golden('test_reuse_and_free.graph.json'));
    const lay = layoutDag(d, d.tensors.map((_, i) => i));
    const v = frameView(lay.nodes, { nodeWidth: 150, nodeHeight: 40, width: lay.width, height: lay.height, viewWidth: 800, viewHeight: 600, minScale: 0.6, focus: lay.nodes[0], top: true });
    expect(v.whole).toBe(true);
  });
});

describe('tooltip placement', () => {
  it('stays inside the viewport wherever the pointer is', () => {
    for (const [w, h] of [[330, 120], [330, 300], [1000, 50], [2000, 2000]]) {
      for (let px = 0; px <= 1600; px += 100) {
        for (let py = 0; py <= 1000; py += 100) {
          const p = tooltipPlace(px, py, w, h, 1600, 1000);
          if (w <= 1592) expect(p.left >= 4 && p.left + w <= 1596).toBe(true);
          if (h <= 992) expect(p.top >= 4 && p.top + h <= 996).toBe(true);
        }
      }
    }
    expect(tooltipPlace(100, 100, 330, 120, 1600, 1000)).toEqual({ left: 114, top: 114 }); // right of and below
    expect(tooltipPlace(1500, 950, 330, 120, 1600, 1000)).toEqual({ left: 1156, top: 816 }); // left of and above
  });
});

describe('finding and showing tensors', () => {
  it('finds by name: the whole name, then prefixes, then the rest, case-insensitive', () => {
    const names = ['kq-1', 'kq_soft_max-1', 'KQ-10', 'attn_norm-1', 'x', 'kq'];
    expect(findTensors(names, 'kq').matches).toEqual([5, 0, 1, 2]);
    expect(findTensors(names, 'KQ-1')).toEqual({ matches: [0, 2], total: 2 });
    expect(findTensors(names, 'norm').matches).toEqual([3]);
    expect(findTensors(names, '  ')).toEqual({ matches: [], total: 0 });
    expect(findTensors(names, 'k', 2)).toEqual({ matches: [0, 1], total: 4 });
    expect(findTensors(names, 'nothing').total).toBe(0);
  });
  it('zooms the timeline to a range of steps, and pans a tensor into view', () => {
    const m = modelOf(g.preset('llama-3.1-70b-c8192'));
    const L = timelineLayout(m, { width: 1200, height: 600 });
    const zx = zoomToSteps(L, 100, 132);
    expect(stepAtBaseX(L, unzoomX(zx, L.left + 0.5))).toBe(100);
    expect(stepAtBaseX(L, unzoomX(zx, L.right - 0.5))).toBe(132);
    expect(zoomToSteps(L, -1, L.steps - 1)).toEqual({ k: 1, x: 0 });
    // in view: unchanged; out of view: centred, same zoom
    expect(panToSteps(L, zx, 110, 111)).toBe(zx);
    const far = panToSteps(L, zx, 2000, 2001);
    expect(far.k).toBe(zx.k);
    const mid = stepAtBaseX(L, unzoomX(far, (L.left + L.right) / 2));
    expect(mid >= 1999 && mid <= 2002).toBe(true);
  });
  it('forgets the range of steps asked of the timeline when another graph is loaded, not when the graph is edited', () => {
    // the timeline shows another graph unzoomed; a range left over would make the layer slider and
    // the memory chart say it shows one (the same preset loaded again has the same layer ranges)
    ui.galloc.value = g;
    expect(ui.loadPreset('llama-tiny')).toBe(true);
    ui.showSteps(9, 3);
    expect(ui.timelineRange.value).toMatchObject({ first: 3, last: 9 });
    expect(ui.replaceText(`${ui.text.value}\n`)).toBe(true); // an edit: the same graph
    expect(ui.timelineRange.value).toMatchObject({ first: 3, last: 9 });
    expect(ui.loadPreset('llama-tiny')).toBe(true);
    expect(ui.timelineRange.value).toBe(null);
    ui.showSteps(3, 9);
    expect(ui.importGraph(g.preset('test_reuse_and_free'))).toBe(true);
    expect(ui.timelineRange.value).toBe(null);
  });
});

describe('layers', () => {
  it('gives each layer the steps of its nodes', () => {
    // tensors 0..6; nodes in step order 2, 3, 4, 5, 6; layers by tensor
    const layers = [-1, 0, 0, 0, 1, -1, 1];
    expect(layerSteps(layers, [2, 3, 4, 5, 6], 3)).toEqual([{ layer: 0, first: 0, last: 1 }, { layer: 1, first: 2, last: 4 }, null]);
    expect(layerSteps(layers, [], 2)).toEqual([null, null]);
    expect(layerLabel(12, 80)).toBe('layer 12 of 80');
    expect(layerLabel(-1, 80)).toBe('');
  });
});
