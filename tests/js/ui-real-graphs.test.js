// ui-real-graphs.test.js: graphs real code builds come into the web UI whole.
//
// The UI imports a document by writing it as graph text and parsing that back
// (graphToText, parseGraphText), then plans it in the WebAssembly module. What real
// graphs bring must survive that trip and plan as the document itself plans: ops, unary
// ops and GLU ops newer than the tables (kept by name), zero-element tensors, sizes per
// buffer type (alloc_sizes) and tensors with memory outside any buffer (external); and
// the module says once what the tables lack (the banner's warning). Every golden-real
// graph (tests/golden-real: real llama.cpp graphs with upstream's plans) goes through the
// same trip and must plan to upstream's plan.

import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

import { graphToText, parseGraphText } from '../../web/src/core/graph-text.js';
import { ROOT, loadWasm, planDifferences } from './wasm-helpers.js';

const galloc = await loadWasm();

/** the document after the UI's import trip: read by the C reader, written as text, parsed */
function throughText(doc) {
  const r = parseGraphText(graphToText(galloc.normalize(doc)));
  if (r.errors) throw new Error(`line ${r.errors[0].line}: ${r.errors[0].message}`);
  return r.doc;
}

const REAL_BITS = {
  buffer_types: [{ name: 'gpu', alignment: 32, max_size: null }, { name: 'cpu', alignment: 32, max_size: null }],
  tensors: [
    { name: 'w', op: 'NONE', type: 'f32', ne: [8], external: true },
    { name: 'x1', op: 'NONE', type: 'f32', ne: [8], flags: ['input'], alloc_sizes: [96, null] },
    { name: 'x2', op: 'SCALE', type: 'f32', ne: [8], src: [1], alloc_sizes: [96, null] },
    { name: 'z', op: 'GET_ROWS', type: 'f32', ne: [8, 0], src: [2] },
    { name: 'u', op: 'UNARY', unary_op: 'SQUAREPLUS', type: 'f32', ne: [8], src: [2] },
    { name: 'n', op: 'GATED_DELTA_NET_V2', type: 'f32', ne: [8], src: [4, 3, 0], flags: ['output'] },
  ],
  nodes: [2, 3, 4, 5],
  leafs: [0, 1],
  node_buffer_ids: [0, 1, 1, 1],
  leaf_buffer_ids: [1, 1],
};

describe('real graphs in the web UI', () => {
  it('unknown ops and unary ops, 0 elements, sizes per buffer type and external memory survive the text trip', () => {
    const doc = throughText(REAL_BITS);
    expect(doc.tensors[0].external).toBe(true);
    expect(doc.tensors[1].alloc_sizes).toEqual([96, null]);
    expect(doc.tensors[3].ne).toEqual([8, 0]);
    expect(doc.tensors[4]).toMatchObject({ op: 'UNARY', unary_op: 'SQUAREPLUS' });
    expect(doc.tensors[5].op).toBe('GATED_DELTA_NET_V2');
    expect(planDifferences(galloc.plan(doc), galloc.plan(REAL_BITS))).toEqual([]);
  });

  it('plans as upstream would: x2 in place of x1 on cpu, the unknown op not in place, w never placed', () => {
    const p = galloc.plan(REAL_BITS);
    // x1 on cpu [0, 32); x2 = scale(x1) takes it over, sized with cpu (32 bytes, not gpu's 96)
    expect(p.tensors[2]).toMatchObject({ buffer: 1, offset: 0, how: 'inplace' });
    expect(p.buffers[0].chunk_sizes).toEqual([]);
    expect(p.tensors[0]).toBeNull();
    expect(p.tensors[5].how).not.toBe('inplace');
  });

  it('the module says once what the tables lack, and nothing for a known graph', () => {
    galloc.normalize(REAL_BITS);
    expect(galloc.lastWarning()).toBe('names the tables of ggml 0.21.0 do not know (kept; such ops planned as not in place): '
      + 'unary op SQUAREPLUS (1 tensor), op GATED_DELTA_NET_V2 (1 tensor)');
    galloc.normalize({ tensors: [{ name: 'a', op: 'NONE', type: 'f32', ne: [4], flags: ['input'] }], outputs: [0] });
    expect(galloc.lastWarning()).toBe('');
  });

  it('every golden-real graph imports through the text trip and plans to upstream plan', () => {
    const dir = path.join(ROOT, 'tests/golden-real');
    const names = readdirSync(dir).filter((f) => f.endsWith('.graph.json')).map((f) => f.slice(0, -'.graph.json'.length));
    expect(names.length).toBe(244);
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
  }, 300000);
});
