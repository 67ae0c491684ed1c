// ui-lessons.test.js: each preset's one sentence (core/presets-info.js) says what its plan shows.
//
// The numbers the sentences state, checked against the module's plan of the preset: chunk counts
// and sizes, totals. (The sentence used to say "after 16" chunks where the 16th is the last, and
// "a larger chunk 0" where chunk 0 shrinks from 24 to 20 bytes and chunk 1 grows.)
import { describe, expect, it } from 'vitest';
import { loadWasm } from './wasm-helpers.js';
import { PRESET_LESSONS } from '../../web/src/core/presets-info.js';

const galloc = await loadWasm();
const chunks = (name) => galloc.plan(galloc.preset(name)).buffers.map((b) => b.chunk_sizes.map(Number));

describe('preset sentences against their plans', () => {
  it('every sentence names a preset the library has', () => {
    const names = new Set(galloc.presets().map((p) => p.name));
    for (const k of Object.keys(PRESET_LESSONS)) if (k !== 'test_reallocation') expect(names.has(k), k).toBe(true);
  });
  it('test_not_enough_chunks: 16 chunks, the first 15 of 8 bytes, the last grown to 16', () => {
    const c = chunks('test_not_enough_chunks')[0];
    expect(c.length).toBe(16);
    expect(c.slice(0, 15).every((x) => x === 8)).toBe(true);
    expect(c[15]).toBe(16);
    expect(PRESET_LESSONS.test_not_enough_chunks).toMatch(/first 15 chunks hold one input each, and the 16th, the last, grows past the max size to 16 bytes/);
  });
  it('realloc_a / realloc_b: 24 + 16 then 20 + 20 bytes: chunk 1 grows from 16 to 20', () => {
    expect(chunks('realloc_a')).toEqual([[24, 16]]);
    expect(chunks('realloc_b')).toEqual([[20, 20]]);
    expect(PRESET_LESSONS.realloc_a).toMatch(/chunks of 24 and 16/);
    expect(PRESET_LESSONS.realloc_b).toMatch(/two 20-byte chunks: chunk 1 must grow from 16 to 20 bytes/);
  });
  it('test_max_size_too_many_tensors: two chunks, 24 bytes in all', () => {
    const c = chunks('test_max_size_too_many_tensors')[0];
    expect(c.length).toBe(2);
    expect(c.reduce((a, b) => a + b, 0)).toBe(24);
  });
  it('test_buffer_size_zero: a buffer type with no memory', () => {
    expect(chunks('test_buffer_size_zero').some((c) => c.reduce((a, b) => a + b, 0) === 0)).toBe(true);
  });
});
