// wasm-alloc-failure.test.js: the module out of memory answers 'out-of-memory' and goes on working.
//
// A fresh instance's heap is filled (blocks of falling sizes until malloc answers NULL at the
// 2 GiB limit) with `room` bytes kept back and freed just before the call, so that the call runs
// out of memory somewhere inside it; over rooms from 0 bytes to 8 MiB the failure falls on many
// different allocations. Every call must end in its answer or an 'out-of-memory' error (never
// an abort: a trap stops the instance, which the next call would show), leave the bytes in use
// where they were, and the call after it, with memory again, must answer as the first did.
// tests/c/test-alloc-failure.c fails each allocation in turn natively (ASan); this is the same
// promise kept by the real WebAssembly build.

import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';

import { loadGalloc } from '../../web/src/core/galloc.js';
import { GOLDEN_DIR, loadWasm } from './wasm-helpers.js';

await loadWasm(); // a clear failure when the module is not built
const galloc = await loadGalloc({ fresh: true }); // its heap ends up at 2 GiB: not the shared instance
const m = galloc.m;

const graph = JSON.parse(readFileSync(path.join(GOLDEN_DIR, 'llama-tiny-2buft.graph.json'), 'utf8'));
const SETTINGS = { n_ctx: 256, n_batch: 64, n_ubatch: 64 };

// the heap filled but for `room` bytes; the blocks to give back
function fill(room) {
  const reserve = room > 0 ? m._galloc_js_alloc(room) : 0;
  if (room > 0 && reserve === 0) throw new Error(`could not keep ${room} bytes back`);
  const blocks = [];
  for (let size = 256 << 20; size >= 8; size >>>= 2) {
    for (;;) {
      const p = m._galloc_js_alloc(size);
      if (p === 0) break;
      blocks.push(p);
    }
  }
  if (reserve) m._galloc_js_free(reserve);
  return blocks;
}

function release(blocks) {
  for (const p of blocks) m._galloc_js_free(p);
}

// what a call answers, as comparable text: its result, or its error's code
function outcome(fn) {
  try {
    return { ok: true, text: JSON.stringify(fn(), (k, v) => (k.endsWith('_us') ? 0 : v)) };
  } catch (e) {
    return { ok: false, code: e.code, message: e.message };
  }
}

// 0, then 16 bytes to 8 MiB in steps of a fifth
const ROOMS = [0];
for (let room = 16; room <= 8 << 20; room = Math.ceil(room * 1.2)) ROOMS.push(room);

const CASES = {
  plan: () => galloc.plan(graph),
  'kept document': () => {
    const doc = galloc.open(graph);
    try {
      return [doc.graph(), doc.plan(), doc.explain()];
    } finally {
      doc.close();
    }
  },
  explain: () => galloc.explain(graph),
  whatif: () => {
    const r = galloc.whatif(graph, { budgetMs: 0 });
    return r;
  },
  preset: () => galloc.presetText('llama-tiny'),
  'model card build': () => {
    const model = galloc.openModel({ card: 'llama-3-8b' });
    try {
      const { sizes, document } = model.build(SETTINGS); // the document kept in the module
      try {
        return [sizes, document.graph(), document.plan()];
      } finally {
        document.close();
      }
    } finally {
      model.close();
    }
  },
};

describe('out of memory inside the module', () => {
  for (const [name, fn] of Object.entries(CASES)) {
    it(`${name}: every call answers or says out-of-memory, leaks nothing, and the next call answers as the first`, () => {
      const first = outcome(fn);
      expect(first.ok, first.message).toBe(true);
      const heap = galloc.heapUsed();
      let failed = 0;
      for (const room of ROOMS) {
        const blocks = fill(room);
        const got = outcome(fn);
        release(blocks);
        if (got.ok) {
          // a what-if that could not check a plan says so ("checked": false) and picks another best
          if (!got.text.includes('"checked":false')) expect(got.text, `room ${room}`).toBe(first.text);
        } else {
          failed++;
          expect(got.code, `room ${room}: ${got.message}`).toBe('out-of-memory');
        }
        expect(galloc.dead, `room ${room}`).toBe(null); // no trap, no abort
        expect(galloc.heapUsed(), `room ${room}`).toBe(heap);
        expect(outcome(fn).text, `room ${room}: the next call`).toBe(first.text);
      }
      expect(failed).toBeGreaterThan(0); // the rooms are small enough for the call to fail
    });
  }
});
