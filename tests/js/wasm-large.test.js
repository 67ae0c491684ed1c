// wasm-large.test.js: the WebAssembly module (32-bit memory) plans 64-bit sizes.
// A graph of 4, 6 and 8 GiB tensors (with a view 5 GiB into one) is planned without a size
// limit and with a 6 GiB one; every offset and chunk size must come out exact, as computed
// by hand below and as the native CLI prints them. Numbers past 2^53 stay decimal strings.

import { describe, expect, it } from 'vitest';

import { cliPlanText, loadWasm } from './wasm-helpers.js';

const galloc = await loadWasm();

const GiB = 2 ** 30;

/** f32 tensors of 4 GiB (2^30 elements), 8 GiB and 6 GiB; max_size as given */
function hugeGraph(maxSize) {
  return {
    format: 'galloc-graph',
    version: 1,
    name: 'huge',
    buffer_types: [{ name: 'virtual', alignment: 64, max_size: maxSize }],
    tensors: [
      { name: 'x0', op: 'NONE', type: 'f32', ne: [GiB], flags: ['input'] },            // 0: 4 GiB
      { name: 'x1', op: 'NONE', type: 'f32', ne: [GiB], flags: ['input'] },            // 1: 4 GiB
      { name: 'y0', op: 'ADD', type: 'f32', ne: [GiB], src: [0, 1] },                  // 2: over x1
      { name: 'y1', op: 'MUL', type: 'f32', ne: [GiB], src: [2, 0] },                  // 3: over x0
      { name: 'big', op: 'CONCAT', type: 'f32', ne: [2 * GiB], src: [3, 2] },          // 4: 8 GiB
      { name: 'v', op: 'VIEW', type: 'f32', ne: [GiB / 4], src: [4], view_src: 4, view_offs: 5 * GiB }, // 5
      { name: 'six', op: 'CONCAT', type: 'f32', ne: [(3 * GiB) / 2], src: [5, 3] },    // 6: 6 GiB
      { name: 'out', op: 'SCALE', type: 'f32', ne: [(3 * GiB) / 2], src: [6], flags: ['output'] }, // 7: over six
    ],
    nodes: [2, 3, 4, 5, 6, 7],
    leafs: [0, 1],
  };
}

/** [chunk, offset, size] of every tensor */
const places = (plan) => plan.tensors.map((t) => [t.chunk, t.offset, t.size]);

describe('sizes past 2^32 in the WebAssembly module', () => {
  it('no size limit: one chunk of 22 GiB', () => {
    const plan = galloc.plan(hugeGraph(null));
    // x0 at 0 and x1 at 4G (inputs first); y0 takes over x1 (its last use), y1 takes over x0;
    // big (8G) grows the chunk at 8G; y0 is freed after big; v is big + 5G = 13G; six (6G)
    // does not fit the freed 4G at 4G, so it grows the chunk at 16G; out takes over six.
    expect(places(plan)).toEqual([
      [0, 0, 4 * GiB],
      [0, 4 * GiB, 4 * GiB],
      [0, 4 * GiB, 4 * GiB],
      [0, 0, 4 * GiB],
      [0, 8 * GiB, 8 * GiB],
      [0, 13 * GiB, GiB],
      [0, 16 * GiB, 6 * GiB],
      [0, 16 * GiB, 6 * GiB],
    ]);
    expect(plan.buffers[0].chunk_sizes).toEqual([22 * GiB]);
    expect(plan.buffers[0].size).toBe(23622320128);
    expect(plan.buffers[0].peak_live).toBe(18 * GiB); // y1 + big + six
    expect(plan.buffers[0].max_size).toBe(null);
    expect(galloc.planText(hugeGraph(null))).toBe(cliPlanText(JSON.stringify(hugeGraph(null))));
  });

  it('max_size "6442450944" (6 GiB): three chunks, the 8 GiB tensor alone in its own', () => {
    const plan = galloc.plan(hugeGraph('6442450944'));
    // x1 does not fit next to x0 under 6G: chunk 1; big is larger than the limit: chunk 2 of
    // its own size; six reuses chunk 1 (freed by y0), growing it from 4G to 6G.
    expect(places(plan)).toEqual([
      [0, 0, 4 * GiB],
      [1, 0, 4 * GiB],
      [1, 0, 4 * GiB],
      [0, 0, 4 * GiB],
      [2, 0, 8 * GiB],
      [2, 5 * GiB, GiB],
      [1, 0, 6 * GiB],
      [1, 0, 6 * GiB],
    ]);
    expect(plan.buffers[0].chunk_sizes).toEqual([4 * GiB, 6 * GiB, 8 * GiB]);
    expect(plan.buffers[0].size).toBe(18 * GiB);
    expect(plan.buffers[0].max_size).toBe(6442450944);
    const text = JSON.stringify(hugeGraph('6442450944'));
    expect(galloc.planText(text)).toBe(cliPlanText(text));
  });

  it('max_size as a number and as a BigInt plan the same', () => {
    const asString = galloc.planText(hugeGraph('6442450944'));
    expect(galloc.planText(hugeGraph(6442450944))).toBe(asString);
    expect(galloc.planText(hugeGraph(6442450944n))).toBe(asString);
  });

  it('numbers past 2^53 stay decimal strings', () => {
    const plan = galloc.plan(hugeGraph(2n ** 53n + 1n));
    expect(plan.buffers[0].max_size).toBe('9007199254740993');
    expect(plan.buffers[0].chunk_sizes).toEqual([22 * GiB]);
    const limit = galloc.plan(hugeGraph('18446744073709551615')); // SIZE_MAX: no limit
    expect(places(limit)).toEqual(places(galloc.plan(hugeGraph(null))));
  });
});
