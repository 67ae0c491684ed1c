// wasm-scenarios.test.js: the 13 scenarios of ggml's allocator test (test-alloc.cpp), as
// built-in presets of the WebAssembly module, plan exactly as the native CLI plans them
// (byte for byte) and as upstream ggml placed them (tests/golden/<name>.plan.json).
// Every other preset is checked against the native CLI (and its golden twin) too.

import { describe, expect, it } from 'vitest';

import { cliPlanText, goldenNames, goldenText, loadWasm, planDifferences, runCli } from './wasm-helpers.js';

const galloc = await loadWasm();

// test-alloc.cpp's 13 tests; test_reallocation plans two graphs, realloc_a and realloc_b
const SCENARIOS = [
  'test_max_size_too_many_tensors',
  'test_max_size_tensor_too_large',
  'test_tensor_larger_than_max_size',
  'test_not_enough_chunks',
  'test_fill_leftover_space',
  'test_view_inplace',
  'test_reuse_and_free',
  'test_merge_free_block_32',
  'test_merge_free_block_SIZE_MAX',
  'test_prefer_already_allocated_memory',
  'test_multiple_buffer_types',
  'test_buffer_size_zero',
  'realloc_a',
  'realloc_b',
];

describe('scenario presets', () => {
  it('lists every scenario, each with a description', () => {
    const presets = galloc.presets();
    const names = presets.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(SCENARIOS));
    expect(new Set(names).size).toBe(names.length);
    for (const p of presets) expect(p.description.length).toBeGreaterThan(10);
  });

  it.each(SCENARIOS)('%s: plans as the native CLI and as upstream ggml', (name) => {
    const graphText = galloc.presetText(name);
    expect(graphText).toBe(runCli(['preset', name]).stdout);

    const wasmText = galloc.planText(graphText);
    expect(wasmText).toBe(cliPlanText(graphText));

    const plan = JSON.parse(wasmText);
    const golden = JSON.parse(goldenText(name, 'plan'));
    expect(planDifferences(plan, golden)).toEqual([]);
    // chunk and offset of every tensor, spelled out
    expect(plan.tensors.map((t) => t && [t.chunk, t.offset])).toEqual(golden.tensors.map((t) => t && [t.chunk, t.offset]));
  });
});

describe('other presets', () => {
  const others = galloc.presets().map((p) => p.name).filter((n) => !SCENARIOS.includes(n));
  const golden = new Set(goldenNames());
  it.each(others)('%s: plans as the native CLI (and as its golden twin, if any)', (name) => {
    const graphText = galloc.presetText(name);
    expect(graphText).toBe(runCli(['preset', name]).stdout);
    const wasmText = galloc.planText(graphText);
    expect(wasmText).toBe(cliPlanText(graphText));
    if (golden.has(name)) expect(planDifferences(JSON.parse(wasmText), JSON.parse(goldenText(name, 'plan')))).toEqual([]);
  });
});
