// wasm-explain.test.js: the explanation of a plan through the WebAssembly module (galloc.explain,
// galloc.explainCompare). A graph solved by hand (tests/explain/README.md); on every golden graph
// the numbers against upstream ggml's (tests/golden/expected-totals.tsv: totals and peaks of live
// bytes): the series' maximum is upstream's peak, the last high-water mark its size; comparisons
// whose difference is the difference of the two plans' totals; bad inputs name their side; no leak.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { GOLDEN_DIR, ROOT, loadWasm } from './wasm-helpers.js';

const galloc = await loadWasm();
const chain = readFileSync(path.join(ROOT, 'tests/explain/chain.graph.json'), 'utf8');
const chainSmall = readFileSync(path.join(ROOT, 'tests/explain/chain-small.graph.json'), 'utf8');

/** upstream's totals and peaks: [{name, total, peaks: bigint[]}] */
function expectedTotals() {
  return readFileSync(path.join(GOLDEN_DIR, 'expected-totals.tsv'), 'utf8').split('\n')
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [name, total, peaks] = l.split('\t');
      return { name, total: BigInt(total), peaks: peaks.split(',').map(BigInt) };
    });
}

const max = (xs) => xs.reduce((m, x) => (BigInt(x) > m ? BigInt(x) : m), 0n);

describe('explain', () => {
  it('gives the hand-derived answer for the chain graph', () => {
    const ex = galloc.explain(chain);
    expect(ex.format).toBe('galloc-explain');
    expect(ex.n_steps).toBe(4);
    expect(ex.n_layers).toBe(2);
    expect(ex.layer).toEqual([-1, 0, 0, 1, -1]);
    const b = ex.buffers[0];
    expect(b.name).toBe('dev');
    expect([b.size, b.peak_live, b.peak_step, b.overhead]).toEqual([112, 96, 1, 16]);
    expect(b.live.map((t) => [t.name, t.op, t.type, t.ne, t.bytes, t.layer])).toEqual([
      ['y-0', 'ADD', 'f32', [16, 1, 1, 1], 64, 0], ['x-0', 'ADD', 'f32', [8, 1, 1, 1], 32, 0]]);
    expect(b.live[0].percent).toBeCloseTo((100 * 64) / 112, 10);
    expect(b.groups.map((g) => [g.name, g.count, g.bytes, g.first_layer, g.last_layer])).toEqual([['y-*', 1, 64, 0, 0], ['x-*', 1, 32, 0, 0]]);
    expect(b.live_bytes).toEqual([16, 48, 96, 80, 32]);
    expect(b.high_water).toEqual([16, 48, 112, 112, 112]);
    expect(b.chunks).toHaveLength(1);
    expect(b.chunks[0].size).toBe(112);
    expect([b.chunks[0].raiser.name, b.chunks[0].raiser.offset, b.chunks[0].raiser.bytes, b.chunks[0].raiser.step]).toEqual(['y-0', 48, 64, 1]);
    // y-0 holds memory over steps 1..2
    expect([ex.hold_buffer[2], ex.hold_first[2], ex.hold_last[2], ex.hold_bytes[2]]).toEqual([0, 1, 2, 64]);
  });

  it('agrees with upstream ggml on every golden graph (peak of live bytes, size)', () => {
    const rows = expectedTotals();
    expect(rows.length).toBeGreaterThan(50);
    for (const { name, total, peaks } of rows) {
      const ex = galloc.explain(readFileSync(path.join(GOLDEN_DIR, `${name}.graph.json`), 'utf8'));
      let sum = 0n;
      ex.buffers.forEach((b, i) => {
        if (b.shared_with !== null) return;
        expect(max(b.live_bytes), `${name} buffer ${i}`).toBe(peaks[i]);
        expect(BigInt(b.peak_live), `${name} buffer ${i}`).toBe(peaks[i]);
        expect(BigInt(b.live_bytes[b.peak_step + 1])).toBe(peaks[i]);
        expect(BigInt(b.high_water.at(-1) ?? 0), `${name} buffer ${i}`).toBe(BigInt(b.size));
        expect(b.live.reduce((s, t) => s + BigInt(t.bytes), 0n)).toBe(peaks[i]);
        sum += BigInt(b.size);
      });
      expect(sum, name).toBe(total);
    }
  });
});

describe('explainCompare', () => {
  it('gives the hand-derived difference of the two chains', () => {
    const { diff, a, b } = galloc.explainCompare(chain, chainSmall, { fold: false });
    expect(a.buffers[0].size).toBe(112);
    expect(b.buffers[0].size).toBe(80);
    expect([diff.total_a, diff.total_b, diff.total_diff]).toEqual([112, 80, -32]);
    const d = diff.buffers[0];
    expect([d.size_diff, d.peak_diff, d.overhead_diff]).toEqual([-32, -32, 0]);
    expect(d.rows).toEqual([{ name: 'y-0', bytes_a: 64, bytes_b: 32, diff: -32, count_a: 1, count_b: 1, tensor_a: 2, tensor_b: 2 }]);
    expect(galloc.explainCompare(chain, chainSmall).diff.buffers[0].rows[0].name).toBe('y-*');
  });

  it('accounts for the difference of the two plans\' totals (presets: flash attention off/on, Llama 3.1 8B against 70B)', () => {
    for (const [x, y] of [['llama-tiny', 'llama-tiny-flash'], ['llama-3.1-8b-c4096', 'llama-3.1-70b-c8192'], ['llama-tiny', 'llama-tiny-2buft']]) {
      const docA = galloc.presetText(x);
      const docB = galloc.presetText(y);
      const { diff } = galloc.explainCompare(docA, docB);
      const totalOf = (doc) => galloc.plan(doc).buffers.reduce((s, bp) => s + BigInt(bp.size), 0n);
      expect(BigInt(diff.total_diff), `${x} vs ${y}`).toBe(totalOf(docB) - totalOf(docA));
      for (const d of diff.buffers) {
        expect(BigInt(d.size_diff)).toBe(BigInt(d.peak_diff) + BigInt(d.overhead_diff));
        expect(d.rows.reduce((s, r) => s + BigInt(r.diff), 0n), `${x} vs ${y} ${d.name}`).toBe(BigInt(d.peak_diff));
      }
    }
  });

  it('lists A\'s tensors above B\'s size (chain against chain-small: y-0 [48, 112), 32 B above 80)', () => {
    const d = galloc.explainCompare(chain, chainSmall, { fold: false }).diff.buffers[0];
    expect(d.above_a).toEqual([{ tensor: 2, name: 'y-0', chunk: 0, step: 1, offset: 48, bytes: 64, above: 32 }]);
    expect(d.above_b).toEqual([]);
  });

  it('names the side of a bad document and keeps working without leaking', () => {
    const before = galloc.heapUsed();
    expect(() => galloc.explain('{')).toThrow(/line 1/);
    try { galloc.explainCompare(chain, '{"tensors": 3}'); expect.unreachable(); } catch (e) {
      expect(e.code).toBe('invalid-input');
      expect(e.message).toMatch(/^B: tensors/);
    }
    try { galloc.explainCompare('[]', chain); expect.unreachable(); } catch (e) { expect(e.message).toMatch(/^A: /); }
    for (let i = 0; i < 50; i++) galloc.explainCompare(chain, chainSmall);
    galloc.explain(galloc.presetText(galloc.presets().at(-1).name));
    expect(galloc.heapUsed()).toBe(before);
    expect(galloc.explain(chain).buffers[0].size).toBe(112);
  });
});

describe('explainOffline', () => {
  it('gives the hand-derived comparison of ggml\'s plan of the chain and greedy-by-size\'s (tests/explain/README.md)', () => {
    const w = galloc.whatif(chain, { bufferType: 0, budgetMs: 0 });
    const gs = w.planners.find((p) => p.name === 'greedy-by-size');
    const { diff, a, b } = galloc.explainOffline(chain, 0, gs);
    expect([a.buffers[0].size, b.buffers[0].size, diff.total_diff]).toEqual([112, 96, -16]);
    const d = diff.buffers[0];
    expect([d.size_diff, d.peak_diff, d.overhead_diff, d.rows.length]).toEqual([-16, 0, -16, 0]);
    expect(d.above_a).toEqual([{ tensor: 2, name: 'y-0', chunk: 0, step: 1, offset: 48, bytes: 64, above: 16 }]);
    expect(d.above_b).toEqual([]);
    expect(b.buffers[0].high_water).toEqual([16, 96, 96, 96, 96]);
  });

  it('makes the difference of the two plans\' totals, for every planner of the presets\' buffer types', () => {
    for (const name of ['llama-tiny', 'llama-tiny-2buft', 'test_multiple_buffer_types']) {
      if (!galloc.presets().some((p) => p.name === name)) continue;
      const doc = galloc.presetText(name);
      const ggml = galloc.plan(doc).buffers;
      const nb = ggml.length;
      for (let bt = 0; bt < nb; bt++) {
        const w = galloc.whatif(doc, { bufferType: bt, budgetMs: 0 });
        for (const p of w.planners.filter((q) => q.checked)) {
          const { diff, b } = galloc.explainOffline(doc, bt, p);
          const totalA = ggml.reduce((s, x) => s + BigInt(x.size), 0n);
          // B is ggml's plan with the analysed allocator's size replaced by the planner's total
          const totalB = totalA - BigInt(ggml[w.buffer_type].size) + BigInt(p.total);
          expect(BigInt(diff.total_diff), `${name} ${bt} ${p.name}`).toBe(totalB - totalA);
          expect(BigInt(b.buffers[w.buffer_type].size)).toBe(BigInt(p.total));
        }
      }
    }
  });

  it('refuses a placement that is no plan, and leaks nothing', () => {
    const before = galloc.heapUsed();
    const w = galloc.whatif(chain, { bufferType: 0, budgetMs: 0 });
    const n = w.items.length;
    try { galloc.explainOffline(chain, 0, { chunks: Array(n).fill(0), offsets: Array(n).fill(0) }); expect.unreachable(); } catch (e) {
      expect(e.code).toBe('invalid-input'); // y-0 and x-0 overlap
    }
    try { galloc.explainOffline(chain, 0, { chunks: [0], offsets: [0] }); expect.unreachable(); } catch (e) {
      expect(e.code).toBe('bad-argument');
      expect(e.message).toMatch(/placement of 1 items for a problem of 5/);
    }
    try { galloc.explainOffline(chain, 3, { chunks: [], offsets: [] }); expect.unreachable(); } catch (e) { expect(e.code).toBe('bad-argument'); }
    expect(() => galloc.explainOffline(chain, 0, { chunks: [0] })).toThrow(/chunks, offsets/);
    const gs = w.planners.find((p) => p.name === 'greedy-by-size');
    for (let i = 0; i < 20; i++) galloc.explainOffline(chain, 0, gs);
    expect(galloc.heapUsed()).toBe(before);
  });
});
