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
