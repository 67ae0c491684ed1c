// ggml-tables.test.js: the web UI's ggml tables are the C library's, not a copy that can drift.
//
// web/src/core/ggml-tables.js is generated from the WebAssembly module's tables (make tables);
// this fails when the committed file and the C tables differ (an op, type, block size, in-place
// rule, unary op, GLU op or flag added, removed or changed on one side only), and checks that
// the modules the UI uses take their tables from it.

import { describe, expect, it } from 'vitest';

import * as generated from '../../web/src/core/ggml-tables.js';
import { FLAGS, INPLACE_OPS, OPS, TYPES } from '../../web/src/core/ggml-types.js';
import { GLU_NAMES, UNARY_NAMES } from '../../web/src/core/op-rules.js';
import { tablesModule } from '../../scripts/gen-ggml-tables.mjs';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT, loadWasm } from './wasm-helpers.js';

const galloc = await loadWasm();
const c = galloc.tables();

describe('ggml tables', () => {
  it('the generated module is exactly what make tables writes from the C tables', () => {
    const committed = readFileSync(path.join(ROOT, 'web/src/core/ggml-tables.js'), 'utf8');
    expect(committed, 'web/src/core/ggml-tables.js differs from the C tables: run make tables').toBe(tablesModule(c));
  });

  it('every table agrees with the C library, in order', () => {
    expect(generated.GGML_VERSION).toBe(c.ggml);
    expect(Object.entries(generated.TYPES)).toEqual(Object.entries(c.types));
    expect(generated.OPS).toEqual(c.ops);
    expect(generated.INPLACE_OP_NAMES).toEqual(c.inplace_ops);
    expect(generated.UNARY_OPS).toEqual(c.unary_ops);
    expect(generated.GLU_OPS).toEqual(c.glu_ops);
    expect(generated.FLAGS).toEqual(c.flags);
  });

  it('ggml 0.21.0: 101 ops, 22 unary ops, 6 GLUs, 35 types (the C tables are checked against upstream in test-ggml)', () => {
    expect(c.ggml).toBe('0.21.0');
    expect([c.ops.length, c.unary_ops.length, c.glu_ops.length, Object.keys(c.types).length]).toEqual([101, 22, 6, 35]);
    expect(c.types.nvfp4).toEqual([64, 36]);
    expect(c.ops).toContain('LIGHTNING_INDEXER');
    expect(c.unary_ops).toContain('SOFTPLUS');
    expect(c.inplace_ops).not.toContain('LIGHTNING_INDEXER');
  });

  it('the UI modules use the generated tables', () => {
    expect(TYPES).toBe(generated.TYPES);
    expect(OPS).toBe(generated.OPS);
    expect(FLAGS).toBe(generated.FLAGS);
    expect([...INPLACE_OPS]).toEqual(c.inplace_ops);
    expect(UNARY_NAMES).toEqual(['unary', ...c.unary_ops.map((n) => n.toLowerCase())]);
    expect(GLU_NAMES).toEqual(['glu', ...c.glu_ops.map((n) => n.toLowerCase())]);
  });
});
