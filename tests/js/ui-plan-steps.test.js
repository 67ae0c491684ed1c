// ui-plan-steps.test.js: a graph joined with the real module's plan; memory at
// each step (live tensors, placed, freed, free gaps); reasons in words.
import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { loadGalloc } from '../../web/src/core/galloc.js';
import { parseGraphText, graphToText } from '../../web/src/core/graph-text.js';
import { normalizeGraph } from '../../web/src/core/graph-model.js';
import { buildModel, peakOf } from '../../web/src/core/plan-model.js';
import { stepState, freeGaps } from '../../web/src/core/steps.js';
import { placementReason } from '../../web/src/core/reasons.js';

const golden = (f) => JSON.parse(readFileSync(new URL(`../golden/${f}`, import.meta.url), 'utf8'));
let g;
beforeAll(async () => { g = await loadGalloc(); });

function modelOf(doc) {
  const d = normalizeGraph(doc);
  return buildModel(d, g.plan(d));
}
const idx = (m, name) => m.doc.tensors.findIndex((t) => t.name === name);

describe('freeGaps', () => {
  it('finds the uncovered parts of a chunk', () => {
    expect(freeGaps([], 40)).toEqual([[0, 40]]);
    expect(freeGaps([[8, 16], [0, 8]], 40)).toEqual([[16, 40]]);
    expect(freeGaps([[8, 16], [24, 32]], 40)).toEqual([[0, 8], [16, 24], [32, 40]]);
    expect(freeGaps([[0, 24], [8, 16], [20, 40]], 40)).toEqual([]);
    expect(freeGaps([[0, 50]], 40)).toEqual([]);
  });
});

describe('buildModel and stepState on test_reuse_and_free', () => {
  let m;
  beforeAll(() => { m = modelOf(g.preset('test_reuse_and_free')); });
  it('joins every placed tensor and the numbers per buffer type', () => {
    expect(m.steps).toBe(6);
    expect(m.buffers[0]).toMatchObject({ chunkSizes: [40, 32], size: 72, peakLive: 72, overhead: 0, nInplace: 3, nViews: 1 });
    expect(m.rects).toHaveLength(9);
    expect(m.total).toBe(72);
  });
  it('gives in-place chains and views one colour family', () => {
    const x1 = idx(m, 'x1');
    expect(m.byTensor[idx(m, 'x3')].family).toBe(x1);
    expect(m.byTensor[idx(m, 'x8')].family).toBe(x1);
    expect(m.byTensor[idx(m, 'x7')].family).toBe(idx(m, 'x4'));
  });
  it('ends a tensor the step before its memory is taken over in place', () => {
    const x1 = m.byTensor[idx(m, 'x1')];
    expect(x1.heir).toBe(idx(m, 'x3'));
    expect(x1.end).toBe(-1);
  });
  it('knows what is live, placed and freed at a step, and the free gaps', () => {
    const s0 = stepState(m, -1);
    expect(s0.live.map((i) => m.doc.tensors[i].name).sort()).toEqual(['x0', 'x1', 'x2']);
    expect(s0.gaps).toEqual([]);
    const s2 = stepState(m, 2);
    const names = (l) => l.map((i) => m.doc.tensors[i].name).sort();
    expect(names(s2.placed)).toEqual(['x5']);
    expect(names(s2.freed)).toEqual(['x0']);
    expect(names(s2.live)).toEqual(['x3', 'x4', 'x5']);
    expect(s2.liveBytes).toEqual([72]);
    const s4 = stepState(m, 4);
    expect(names(s4.freed)).toEqual(['x5']);
    expect(s4.gaps).toEqual([{ buffer: 0, chunk: 0, offset: 8, size: 32 }]);
    expect(names(s4.liveViews)).toEqual(['x7']);
  });
  it('explains each placement in words', () => {
    expect(placementReason(m, idx(m, 'x3'))).toBe("took over x1's memory in place (x1's last use)");
    expect(placementReason(m, idx(m, 'x4'))).toMatch(/^new chunk 1: nothing else fit under the 40 B max size/);
    expect(placementReason(m, idx(m, 'x7'))).toBe('view of x6 at +8 bytes: no memory of its own');
    expect(placementReason(m, idx(m, 'x1'))).toMatch(/^first tensor of dummy/);
    expect(placementReason(m, idx(m, 'x2'))).toMatch(/^end of chunk 0, growing it/);
  });
  it('computes the peak of live bytes like the library', () => {
    const own = m.rects.filter((r) => !r.view);
    expect(peakOf(own, m.steps)).toBe(m.buffers[0].peakLive);
  });
});

describe('models of bigger graphs', () => {
  it('llama-tiny: externals have no place, and say why', () => {
    const m = modelOf(golden('llama-tiny.graph.json'));
    const w = idx(m, 'blk.0.attn_k.weight');
    expect(m.byTensor[w]).toBe(null);
    expect(placementReason(m, w)).toMatch(/outside the graph allocator/);
    expect(m.buffers[0].chunkSizes).toEqual([21696]);
    expect(m.buffers[0].peakLive).toBe(19616);
  });
  it('the overhead above the peak is the plan document\'s (written in C), absent from a golden plan file', () => {
    // tests/explain/README.md: the chain packs into 112 B, its peak of live bytes is 96 B
    const chain = normalizeGraph(JSON.parse(readFileSync(new URL('../explain/chain.graph.json', import.meta.url), 'utf8')));
    const plan = g.plan(chain);
    expect(plan.buffers[0].overhead).toBe(16);
    expect(buildModel(chain, plan).buffers[0]).toMatchObject({ size: 112, peakLive: 96, overhead: 16 });
    const d = normalizeGraph(golden('test_view_inplace.graph.json'));
    expect(buildModel(d, golden('test_view_inplace.plan.json')).buffers[0].overhead).toBe(null); // the file does not say
  });
  it('a plan without lifetimes (a golden plan file) gets them from the graph: by hand', () => {
    // x0, x4 inputs (before the first node); x1 = reshape(x0) at step 0, x2 = permute(x1) at 1,
    // x3 = view(x2) at 2 (views of x0); x5 = add(x3, x4) at 3, an output. Each lives from its
    // step to its last consumer's: x1 to 1 (x2), x2 to 2 (x3), x3 to 3 (x5); x0 through its
    // views to 3; x4 to 3; x5 to the end (3)
    const d = normalizeGraph(golden('test_view_inplace.graph.json'));
    const m = buildModel(d, golden('test_view_inplace.plan.json'));
    expect(m.rects.map((r) => [d.tensors[r.i].name, r.first, r.last])).toEqual([
      ['x0', -1, 3], ['x4', -1, 3], ['x1', 0, 1], ['x2', 1, 2], ['x3', 2, 3], ['x5', 3, 3],
    ]);
    expect(m.buffers[0].size).toBe(24);
  });
  it('a plan without lifetimes gets the ones the library computes, on every golden plan', () => {
    // the library's lifetimes are the truth the fallback approximates: on these graphs it is exact
    // (an unconsumed view keeps its root to the end, as ggml never frees it)
    const files = readdirSync(new URL('../golden/', import.meta.url)).filter((f) => f.endsWith('.plan.json'));
    let n = 0;
    for (const f of files) {
      const d = normalizeGraph(golden(f.replace('.plan.json', '.graph.json')));
      if (d.tensors.length > 2000) continue; // the 10,000-node graphs add time, not cases
      n++;
      const lib = g.plan(d);
      const m = buildModel(d, golden(f));
      const wrong = m.rects.filter((r) => r.first !== lib.tensors[r.i].first || r.last !== lib.tensors[r.i].last)
        .map((r) => `${d.tensors[r.i].name}: [${r.first}, ${r.last}], library [${lib.tensors[r.i].first}, ${lib.tensors[r.i].last}]`);
      expect(wrong.slice(0, 3), f).toEqual([]);
    }
    expect(n).toBeGreaterThanOrEqual(40);
  });
  it('the text form plans to the golden plan', () => {
    for (const f of ['llama-tiny-2buft', 'test_multiple_buffer_types', 'rand-n100-s1-a32-chunked']) {
      const r = parseGraphText(graphToText(golden(`${f}.graph.json`)));
      const p = g.plan(r.doc);
      const want = golden(`${f}.plan.json`);
      expect(p.buffers.map((b) => b.chunk_sizes)).toEqual(want.buffers.map((b) => b.chunk_sizes));
      expect(p.tensors.map((t) => t && [t.buffer, t.chunk, t.offset])).toEqual(want.tensors.map((t) => t && [t.buffer, t.chunk, t.offset]));
    }
  });
  it('live bytes per step are the C explanation\'s, on a 12,000-tensor plan', () => {
    // the explanation (galloc-explain.h) counts live bytes in C from the planner's own lifetimes;
    // steps.js derives them from the joined rectangles: every 97th step, the peak and both ends
    const doc = normalizeGraph(golden('rand-n10000-s1-a32-chunked.graph.json'));
    const m = buildModel(doc, g.plan(doc));
    const ex = g.explain(doc);
    const steps = [-1, m.steps - 1, ex.buffers[0].peak_step];
    for (let s = 0; s < m.steps; s += 97) steps.push(s);
    for (const s of steps) {
      expect(stepState(m, s).liveBytes, `step ${s}`).toEqual(ex.buffers.map((b) => b.live_bytes[s + 1]));
    }
    expect(Math.max(...ex.buffers[0].live_bytes)).toBe(m.buffers[0].peakLive);
  });
  it('live bytes per step are the C explanation\'s at every step of the small golden graphs', () => {
    for (const f of ['test_reuse_and_free', 'test_view_inplace', 'llama-tiny', 'llama-tiny-2buft', 'test_multiple_buffer_types']) {
      const doc = normalizeGraph(golden(`${f}.graph.json`));
      const m = buildModel(doc, g.plan(doc));
      const ex = g.explain(doc);
      for (let s = -1; s < m.steps; s++) {
        expect(stepState(m, s).liveBytes, `${f} step ${s}`).toEqual(ex.buffers.map((b) => b.live_bytes[s + 1]));
      }
    }
  });
});
