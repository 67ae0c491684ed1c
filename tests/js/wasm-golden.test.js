// wasm-golden.test.js: every golden graph in tests/golden (written by upstream ggml's own
// allocator) planned by the WebAssembly module equals the golden plan: chunk sizes of every
// buffer, buffer/chunk/offset of every tensor, null for null. The plan text is also byte for
// byte the native CLI's, extras (lifetimes, how each tensor was placed) included.

import { describe, expect, it } from 'vitest';

import { cliPlanText, goldenNames, goldenText, loadWasm, planDifferences } from './wasm-helpers.js';

const galloc = await loadWasm();
const names = goldenNames();

describe('golden graphs', () => {
  it('finds the golden pairs', () => {
    expect(names.length).toBeGreaterThanOrEqual(58);
  });

  it.each(names)('%s', (name) => {
    const graphText = goldenText(name, 'graph');
    const wasmText = galloc.planText(graphText);
    const plan = JSON.parse(wasmText);
    const golden = JSON.parse(goldenText(name, 'plan'));
    expect(planDifferences(plan, golden)).toEqual([]);
    expect(plan.tensors.length).toBe(golden.tensors.length);
    expect(plan.tensors.map((t) => t === null)).toEqual(golden.tensors.map((t) => t === null));
    expect(wasmText).toBe(cliPlanText(graphText));
  });
});
