// ui-later-sources.test.js: graphs where a node reads a source that comes later, in the web UI.
//
// llama.cpp's scheduler hands ggml_gallocr such graphs (tests/devices/placements, with the
// placement ggml made). They come in through the UI's import trip (graph text and back) and plan
// in the WebAssembly module as upstream planned them; the plan model and the words for each
// placement follow upstream's rule (a source gets its memory at its first consumer, in that
// consumer's buffer type); a plan with a tensor placed twice is refused by explain, with why.
// The small graphs and their plans are tests/c/test-later-sources.c's, worked out by hand there.

import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

import { graphToText, parseGraphText } from '../../web/src/core/graph-text.js';
import { normalizeGraph } from '../../web/src/core/graph-model.js';
import { buildModel } from '../../web/src/core/plan-model.js';
import { placementReason } from '../../web/src/core/reasons.js';
import { ROOT, loadWasm, planDifferences } from './wasm-helpers.js';

const galloc = await loadWasm();

const t = (name, op, ne, extra = {}) => ({ name, op, type: 'f32', ne, ...extra });
// nodes v c b d e f g: v views b (later), d reads e (later); e is assigned to GPU, placed in CPU by d.
// The tensors are listed sources first (graph text defines a tensor before using it); the nodes run
// in another order, as tests/c/test-later-sources.c's MINIMAL
const MINIMAL = {
  name: 'later-sources',
  buffer_types: [{ name: 'CPU', alignment: 32, max_size: null }, { name: 'GPU', alignment: 32, max_size: null }],
  tensors: [
    t('a', 'NONE', [16]),
    t('b', 'CONT', [16], { src: [0] }),
    t('v', 'VIEW', [8], { src: [1], view_src: 1, view_offs: 32 }),
    t('c', 'CONT', [8], { src: [2] }),
    t('e', 'CONT', [16], { src: [0] }),
    t('d', 'MUL_MAT', [8], { src: [3, 4] }),
    t('f', 'MUL_MAT', [8], { src: [1, 5] }),
    t('g', 'MUL_MAT', [8], { src: [4, 6], flags: ['output'] }),
  ],
  nodes: [2, 3, 1, 5, 4, 6, 7],
  leafs: [0],
  node_buffer_ids: [0, 0, 0, 0, 1, 0, 1],
  leaf_buffer_ids: [0],
};

/** the document after the UI's import trip: read by the C reader, written as text, parsed */
function throughText(doc) {
  const r = parseGraphText(graphToText(galloc.normalize(doc)));
  if (r.errors) throw new Error(`line ${r.errors[0].line}: ${r.errors[0].message}`);
  return r.doc;
}

const modelOf = (doc) => { const d = normalizeGraph(galloc.normalize(doc)); return buildModel(d, galloc.plan(d)); };
const idx = (m, name) => m.doc.tensors.findIndex((x) => x.name === name);

describe('sources after their consumer', () => {
  it('the minimal graph plans as worked out by hand, through the text trip too', () => {
    const p = galloc.plan(MINIMAL);
    const where = p.tensors.map((x) => (x ? [x.buffer, x.offset, x.first, x.last] : null));
    // a, b, v, c, e, d, f, g
    expect(where).toEqual([[0, 0, -1, 4], [0, 64, 0, 5], [0, 96, 0, 1], [0, 128, 1, 3], [0, 160, 3, 6], [0, 224, 3, 5], [0, 128, 5, 6], [1, 0, 6, 6]]);
    expect(p.buffers.map((b) => b.chunk_sizes)).toEqual([[256], [32]]);
    const back = throughText(MINIMAL);
    expect(back.nodes).toEqual(MINIMAL.nodes);
    expect(planDifferences(galloc.plan(back), p)).toEqual([]);
  });

  it('says why a source is placed before its own step, and in whose buffer type', () => {
    const m = modelOf(MINIMAL);
    expect(placementReason(m, idx(m, 'b'))).toBe('end of chunk 0, growing it to 128 B; placed at step 0, before its own step 2: v reads it there first');
    expect(placementReason(m, idx(m, 'e'))).toBe('end of chunk 0, growing it to 224 B; placed at step 3, before its own step 4: d reads it there first, in CPU (that node\'s buffer type, not its own)');
    // a plan without lifetimes (an upstream plan file): the same first steps, from the graph
    const upstream = { ...galloc.plan(MINIMAL) };
    upstream.tensors = upstream.tensors.map((x) => (x ? { buffer: x.buffer, chunk: x.chunk, offset: x.offset, size: x.size, ...(x.view ? { view: true } : {}) } : null));
    const m2 = buildModel(m.doc, upstream);
    expect(m2.byTensor[idx(m, 'b')].first).toBe(0);
    expect(m2.byTensor[idx(m, 'e')].first).toBe(3);
  });

  it('a view met only before its root has no memory, and says so', () => {
    const doc = {
      tensors: [t('x', 'NONE', [4]), t('y', 'ADD', [4], { src: [0, 0] }), t('w', 'VIEW', [4], { src: [0], view_src: 1 })],
      nodes: [2, 1], leafs: [0],
    };
    const m = modelOf(doc);
    expect(m.plan.tensors[2]).toBeNull();
    expect(placementReason(m, 2)).toMatch(/^view of y, met only before y gets its memory/);
  });

  it('explain refuses a plan with a tensor placed twice, and says why', () => {
    const doc = {
      tensors: [t('a', 'NONE', [16]), t('d', 'MUL_MAT', [8], { src: [3], flags: ['output'] }), t('x', 'CONT', [8], { src: [0], flags: ['output'] }), t('e', 'CONT', [16], { src: [0] })],
      nodes: [1, 2, 3], leafs: [0],
    };
    expect(galloc.plan(doc).tensors[3]).toMatchObject({ offset: 160, first: 2 });
    expect(() => galloc.explain(doc)).toThrow(/1 tensors placed twice/);
    expect(galloc.explain(MINIMAL).buffers[0].peak_live).toBe(256);
  });

  it('the scheduler\'s graphs of tests/devices/placements import through the text trip and plan to ggml\'s placement', () => {
    const dir = path.join(ROOT, 'tests/devices/placements');
    const names = readdirSync(dir).filter((f) => f.endsWith('.graph.json')).map((f) => f.slice(0, -'.graph.json'.length));
    expect(names.length).toBe(4);
    const failed = [];
    for (const name of names) {
      const graph = JSON.parse(readFileSync(path.join(dir, `${name}.graph.json`), 'utf8'));
      const expected = JSON.parse(readFileSync(path.join(dir, `${name}.plan.json`), 'utf8'));
      try {
        const d = planDifferences(galloc.plan(throughText(graph)), expected);
        if (d.length) failed.push(`${name}: ${d[0]}`);
      } catch (e) {
        failed.push(`${name}: ${e.message}`);
      }
    }
    expect(failed).toEqual([]);
  });
});
