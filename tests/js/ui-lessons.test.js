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
  it('every conformance scenario has a sentence, and each sentence says what its plan shows', () => {
    const scenarios = galloc.presets().map((p) => p.name).filter((n) => /^(test_|realloc)/.test(n));
    for (const n of scenarios) expect(PRESET_LESSONS[n], n).toBeTruthy();
    // tensor facts by name: {buffer, chunk, offset, size, how, first, last}
    const facts = (name) => {
      const doc = galloc.preset(name);
      const plan = galloc.plan(doc);
      const at = (t) => plan.tensors[doc.tensors.findIndex((x) => x.name === t)];
      return { at, plan, doc, max: (b = 0) => doc.buffer_types[b].max_size, sizes: plan.buffers.map((b) => b.chunk_sizes.map(Number)) };
    };
    const L = PRESET_LESSONS;
    { // the concat (24 bytes) starts chunk 1 while chunk 0 has 8 bytes left under its max size
      const f = facts('test_max_size_tensor_too_large');
      expect(f.at('x2')).toMatchObject({ chunk: 1, size: 24, how: 'new_chunk' });
      expect(f.max() - f.sizes[0][0]).toBe(8);
      expect(L.test_max_size_tensor_too_large).toMatch(/concat result \(24 bytes\) does not fit in the 8 bytes left in chunk 0, so it starts chunk 1/);
    }
    { // a tensor larger than the max size gets a chunk of its own size
      const f = facts('test_tensor_larger_than_max_size');
      expect(f.sizes[0]).toEqual([24]);
      expect(f.max()).toBeLessThan(24);
      expect(L.test_tensor_larger_than_max_size).toMatch(/larger than the max size still gets a chunk of its own size/);
    }
    { // the pad (16 bytes) opens chunk 1; the mean goes back into chunk 0 where x0 was
      const f = facts('test_fill_leftover_space');
      expect(f.at('x1')).toMatchObject({ chunk: 1, size: 16, how: 'new_chunk' });
      expect(f.at('x2')).toMatchObject({ chunk: 0, offset: f.at('x0').offset });
      expect(f.at('x0').last).toBeLessThan(f.at('x2').first);
      expect(f.sizes[0]).toHaveLength(2);
      expect(L.test_fill_leftover_space).toMatch(/16-byte padded tensor .* opens chunk 1; the mean result then goes back into chunk 0, where x0 was freed/);
    }
    { // views own no memory; the add in place; 24 bytes
      const f = facts('test_view_inplace');
      for (const v of ['x1', 'x2', 'x3']) expect(f.at(v).how, v).toBe('view');
      expect(f.at('x5').how).toBe('inplace');
      expect(f.plan.buffers[0].size).toBe(24);
      expect(L.test_view_inplace).toMatch(/Reshape, permute and view own no memory .* the add runs in place .* fits in 24 bytes/);
    }
    { // adds in place over their first input; the scale in a freed block; the view keeps x6 to its last use
      const f = facts('test_reuse_and_free');
      for (const [add, input] of [['x3', 'x1'], ['x6', 'x4'], ['x8', 'x3']]) expect(f.at(add), add).toMatchObject({ how: 'inplace', offset: f.at(input).offset, chunk: f.at(input).chunk });
      const x5 = f.at('x5');
      expect(f.at('x0').last).toBeLessThan(x5.first); // x0's block, freed before the scale
      expect(x5.offset).toBeLessThan(f.at('x0').offset + f.at('x0').size);
      expect(f.at('x7').how).toBe('view');
      expect(f.at('x6').last).toBe(f.at('x7').last);
      expect(L.test_reuse_and_free).toMatch(/adds take over their first input in place, the scale result fills a freed block, and the view keeps x6 alive until its last use/);
    }
    { // merged free blocks: x7 (24 bytes) where x4's 4 and x0's 16 were; a 32-byte max size: several chunks
      const f = facts('test_merge_free_block_32');
      const x7 = f.at('x7');
      expect(x7.size).toBe(24);
      const freedBefore = ['x0', 'x4'].map(f.at).filter((t) => t.chunk === x7.chunk && t.last < x7.first);
      expect(freedBefore.length).toBe(2);
      expect(freedBefore.every((t) => t.offset < x7.offset + x7.size && x7.offset < t.offset + t.size)).toBe(true);
      expect(f.sizes[0].length).toBeGreaterThan(1);
      expect(f.max()).toBe(32);
      expect(L.test_merge_free_block_32).toMatch(/Adjacent freed blocks merge .* a later, bigger tensor fits where two small ones were \(max size 32 forces several chunks\)/);
    }
    { // the same graph unlimited: one chunk, grown only at its end, merged blocks reused
      const f = facts('test_merge_free_block_SIZE_MAX');
      expect(f.sizes[0]).toHaveLength(1);
      expect(f.at('x7')).toMatchObject({ offset: 8, how: 'best_fit' });
      for (const t of f.doc.tensors) if (f.at(t.name)?.how === 'grow') expect(f.at(t.name).first).toBeLessThanOrEqual(0);
      expect(L.test_merge_free_block_SIZE_MAX).toMatch(/a single chunk, where merged free blocks are reused and the chunk grows only at its end/);
    }
    { // x2 in x0's freed block, not the 4 bytes at the end under the max size
      const f = facts('test_prefer_already_allocated_memory');
      expect(f.at('x2')).toMatchObject({ offset: f.at('x0').offset, size: 4 });
      expect(f.at('x0').size).toBe(24);
      expect(f.sizes[0]).toEqual([28]);
      expect(f.max() - 28).toBe(4);
      expect(L.test_prefer_already_allocated_memory).toMatch(/x2 \(4 bytes\) goes into x0's freed 24-byte block, not at the end of the 28-byte chunk, where the 4 bytes left under the 32-byte max size/);
    }
    { // in place across buffer types
      const f = facts('test_multiple_buffer_types');
      const bt = (i) => f.doc.buffer_types[i].name;
      expect(bt(f.at('x3').buffer)).toBe('dummy_a');
      expect(f.at('x3')).toMatchObject({ how: 'inplace', offset: f.at('x2').offset, chunk: f.at('x2').chunk });
      for (const t of ['x7', 'x8']) expect(bt(f.at(t).buffer), t).toBe('dummy_b');
      expect(f.at('x7').offset).toBe(f.at('x6').offset);
      for (const t of ['a0', 'a1', 'b0', 'b1']) expect(f.at(t)?.how ?? 'extern', t).not.toMatch(/new_chunk|grow|best_fit|last_block/);
      expect(L.test_multiple_buffer_types).toMatch(/x3 \(assigned dummy_b\) takes over x2's bytes in dummy_a, and x7 and x8 \(assigned dummy_a\) stay in x6's bytes in dummy_b/);
    }
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
