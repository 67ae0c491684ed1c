// presets-info.js: what each conformance scenario teaches, in one sentence.
//
// Written for this visualizer from what ggml's allocator test builds and
// checks in each case; the library's own description (presets()) is shown
// next to it. Keys are the preset names the library uses.

/** @type {Record<string, string>} */
export const PRESET_LESSONS = {
  test_max_size_too_many_tensors:
    'With a 16-byte max size the three 8-byte inputs need two chunks; after that every sum takes over an input in place, so 24 bytes suffice.',
  test_max_size_tensor_too_large:
    'The concat result (24 bytes) does not fit in the 8 bytes left in chunk 0, so it starts chunk 1 even though chunk 0 is not full.',
  test_tensor_larger_than_max_size:
    'A tensor larger than the max size still gets a chunk of its own size: the allocator never refuses, it leaves the limit for the backend to enforce.',
  test_not_enough_chunks:
    'Seventeen 8-byte inputs with an 8-byte max size would need 17 chunks, but a buffer has at most 16: the first 15 chunks hold one input each, and the 16th, the last, grows past the max size to 16 bytes to take the other two.',
  test_fill_leftover_space:
    'The 16-byte padded tensor cannot fit beside x0 and opens chunk 1; the mean result then goes back into chunk 0, where x0 was freed, instead of growing chunk 1.',
  test_view_inplace:
    'Reshape, permute and view own no memory (they alias x0), and the add runs in place over its input, so the whole graph fits in 24 bytes.',
  test_reuse_and_free:
    'Freed tensors are reused: adds take over their first input in place, the scale result fills a freed block, and the view keeps x6 alive until its last use.',
  test_merge_free_block_32:
    'Adjacent freed blocks merge into one larger block, so a later, bigger tensor fits where two small ones were (max size 32 forces several chunks).',
  test_merge_free_block_SIZE_MAX:
    'The same graph without a max size: a single chunk, where merged free blocks are reused and the chunk grows only at its end.',
  test_prefer_already_allocated_memory:
    'x2 (4 bytes) goes into x0\'s freed 24-byte block, not at the end of the 28-byte chunk, where the 4 bytes left under the 32-byte max size would fit it exactly: memory already allocated is preferred.',
  test_multiple_buffer_types:
    'Two buffer types with their own chunks and limits; the inputs a0, a1, b0, b1 are allocated outside the graph (extern) and take no space. A tensor computed in place lives in its source\'s buffer type, not its own: x3 (assigned dummy_b) takes over x2\'s bytes in dummy_a, and x7 and x8 (assigned dummy_a) stay in x6\'s bytes in dummy_b.',
  test_buffer_size_zero:
    'A buffer type that no tensor is assigned to needs no memory at all: its size is 0 and no backend buffer is made for it.',
  realloc_a:
    'The first graph of the reallocation test: its 40 bytes split into chunks of 24 and 16 under a 32-byte max size.',
  realloc_b:
    'The second graph reuses the first allocator (realloc_a: chunks of 24 and 16 bytes); it needs the same 40 bytes, but as two 20-byte chunks: chunk 1 must grow from 16 to 20 bytes, so the buffers are made again.',
  test_reallocation:
    'Re-planning a different graph with the same allocator: the same total, but a chunk that must grow (chunk 1, from 16 to 20 bytes) forces new backend buffers.',
};

/**
 * The sentence for a preset, or ''.
 * @param {string} name
 * @returns {string}
 */
export function presetLesson(name) {
  return PRESET_LESSONS[name] ?? '';
}
