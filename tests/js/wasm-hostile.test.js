// wasm-hostile.test.js: the WebAssembly module on hostile input (issue 15): memory is never
// sized from a count in the input before its entries are checked.

import { describe, expect, it } from 'vitest';

import { loadWasm } from './wasm-helpers.js';

const galloc = await loadWasm();

describe('hostile documents', () => {
  it('4,194,304 zero-filled tensor entries (8 MB) are refused at tensors[0] without a 1 GiB heap', () => {
    const text = `{"tensors":[${Array(4194304).fill('0').join(',')}]}`;
    expect(() => galloc.planText(text)).toThrow(/^tensors\[0\]: expected an object, got a number$/);
    // the JSON values themselves take ~16 bytes each; room for 4M tensors (~1 GB) must not be made
    // before one is read (the heap grew from 16 MiB to 1,053 MiB; it never shrinks)
    expect(galloc.m.HEAPU8.length).toBeLessThan(384 * 2 ** 20);
  });
});

describe('JS API arguments', () => {
  const bad = (fn, pattern) => {
    let err = null;
    try {
      fn();
    } catch (e) {
      err = e;
    }
    expect(err, String(fn)).not.toBe(null);
    expect(err.code).toBe('bad-argument');
    expect(err.message).toMatch(pattern);
  };

  it('capacity is a number, a BigInt or a decimal string: not true, [5] or "0x10"', () => {
    for (const capacity of [true, [5], '0x10', '1e3', {}, -1, 1.5]) {
      bad(() => galloc.whatifCsv('0,0,2,8\n', { capacity, budgetMs: 0 }), /^capacity: /);
    }
    expect(galloc.whatifCsv('0,0,2,8\n', { capacity: ' 16 ', budgetMs: 0 }).capacity).toBe(16);
    expect(galloc.whatifCsv('0,0,2,8\n', { capacity: 16n, budgetMs: 0 }).capacity).toBe(16);
  });

  it('a preset name with a NUL is no preset name (it read as the name before the NUL)', () => {
    bad(() => galloc.preset('llama-tiny\0x'), /^preset: "llama-tiny\\u0000x" is not a preset name$/);
    expect(galloc.preset('llama-tiny').name).toBe('llama-tiny');
  });

  it('timePlan counts runs exactly: 2**32 + 2 is refused, not run twice', () => {
    const doc = galloc.presetText('llama-tiny');
    bad(() => galloc.timePlan(doc, 2 ** 32 + 2), /^runs: 4294967298 is not an integer in \[1, 100000\]$/);
    bad(() => galloc.timePlan(doc, '3'), /^runs: /);
  });

  it('the UI\'s module holds no benchmark code: timePlan is refused (bench/bench.mk builds the module that has it)', () => {
    expect(galloc.m._galloc_js_time_plan).toBe(undefined);
    bad(() => galloc.timePlan(galloc.presetText('llama-tiny'), 2), /^timePlan: this module has no timing code/);
  });

  it('errors from cyclic or throwing objects carry a code', () => {
    const cyclic = { tensors: [] };
    cyclic.self = cyclic;
    bad(() => galloc.plan(cyclic), /^document: cannot be written as JSON/);
    const throwing = { tensors: [], get nodes() { throw new Error('boom'); } };
    bad(() => galloc.plan(throwing), /^document: cannot be written as JSON \(boom\)$/);
  });
});
