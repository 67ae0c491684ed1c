// doc-reader-heap.test.js: the document reader's memory in the WebAssembly module (issue 15): an
// 8 MB "tensors" array of 4,194,304 zeros is refused at tensors[0] with the heap grown by about
// the text itself. The entries are checked while the JSON is parsed and not kept, then read from
// the text one at a time; the heap never shrinks, so what the reader builds first stays with the page.

import { describe, expect, it } from 'vitest';

import { loadWasm } from './wasm-helpers.js';

const galloc = await loadWasm();

describe('document reader memory', () => {
  it('4,194,304 zero-filled tensor entries: refused at tensors[0], the heap under 40 MiB', () => {
    const before = galloc.m.HEAPU8.length;
    const text = `{"tensors":[${Array(4194304).fill('0').join(',')}]}`;
    expect(() => galloc.planText(text)).toThrow(/^tensors\[0\]: expected an object, got a number$/);
    // the text (8 MiB) is copied into the heap; a tree of its values took 16 bytes each (64 MiB,
    // and its growing stack as much again: the heap reached 269 MiB)
    expect(before).toBeLessThanOrEqual(32 * 2 ** 20);
    expect(galloc.m.HEAPU8.length).toBeLessThan(40 * 2 ** 20);
  });

  it('the same entries after a syntax error at the end: the syntax error is reported', () => {
    const text = `{"tensors":[${Array(4194304).fill('0').join(',')},]}`;
    expect(() => galloc.planText(text)).toThrow(/^line 1, column 8388621: expected a value, got ']'$/);
    expect(galloc.m.HEAPU8.length).toBeLessThan(40 * 2 ** 20);
  });
});
