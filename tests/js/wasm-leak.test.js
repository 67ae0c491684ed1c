// wasm-leak.test.js: the WebAssembly module frees everything it allocates. 5,000 plans of a
// mid-size graph (100 nodes), with rejected documents, presets and normalize() mixed in,
// must leave the bytes in use by malloc (heapUsed(), dlmalloc's uordblks) where they
// started, and must not grow the heap itself after the first plan.

import { describe, expect, it } from 'vitest';

import { goldenText, loadWasm } from './wasm-helpers.js';

const galloc = await loadWasm();
const GRAPH = goldenText('rand-n100-s0-a32', 'graph');

describe('no leak', () => {
  it('heapUsed() sees an allocation (the measure works)', () => {
    const m = galloc.m; // the raw module: only to test the instrument
    const before = galloc.heapUsed();
    const p = m._galloc_js_alloc(100000);
    expect(p).not.toBe(0);
    expect(galloc.heapUsed()).toBeGreaterThanOrEqual(before + 100000);
    m._galloc_js_free(p);
    expect(galloc.heapUsed()).toBe(before);
  });

  it('5,000 plans of a 100-node graph, with errors in between', { timeout: 120000 }, () => {
    const graph = JSON.parse(GRAPH);
    const bad = { ...graph, nodes: [...graph.nodes, graph.nodes[0]] }; // a duplicate node
    const reference = galloc.planText(GRAPH);
    const heapBefore = galloc.heapUsed();
    const lengthBefore = galloc.m.HEAPU8.length;

    let errors = 0;
    for (let i = 0; i < 5000; i++) {
      const text = galloc.planText(i % 2 ? GRAPH : graph);
      if (i % 1000 === 0) expect(text).toBe(reference);
      if (i % 50 === 0) {
        try {
          galloc.plan(bad);
        } catch (e) {
          errors++;
          expect(e.message).toMatch(/^nodes\[\d+\]: tensor \d+ is already nodes\[0\]$/);
        }
        expect(() => galloc.plan('{"format": ')).toThrow(/^line 1, column/);
      }
      if (i % 500 === 0) {
        galloc.presets();
        galloc.preset('test_view_inplace');
        galloc.normalize(GRAPH);
        expect(() => galloc.preset('no_such_preset')).toThrow('unknown preset');
      }
    }
    expect(errors).toBe(100);
    expect(galloc.heapUsed()).toBe(heapBefore);
    expect(galloc.m.HEAPU8.length).toBe(lengthBefore);
  });
});
