// gen-ggml-tables.mjs: writes web/src/core/ggml-tables.js from the C library's tables.
//
// usage: node scripts/gen-ggml-tables.mjs [OUT]   (make tables; needs build/wasm/galloc.mjs)
// The tables (types with block sizes, ops, which ops may run in place, unary ops, GLU ops,
// flags) exist once, in C (c/src/ggml/ggml.c; the in-place ops: the planner's table, c/src/alloc/galloc-planner.c); the web UI imports
// this generated copy, and tests/js/ggml-tables.test.js fails when it differs from what the
// WebAssembly module reports.

import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { loadGalloc } from '../web/src/core/galloc.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const out = process.argv[2] ?? path.join(root, 'web/src/core/ggml-tables.js');

/**
 * The module text for a tables object.
 * @param {ReturnType<import('../web/src/core/galloc.js').Galloc['tables']>} t
 * @returns {string}
 */
export function tablesModule(t) {
  const list = (a) => `[\n${a.map((x) => `  ${JSON.stringify(x)},`).join('\n')}\n]`;
  const types = Object.entries(t.types).map(([k, [b, s]]) => `  ${k}: [${b}, ${s}],`).join('\n');
  return `// ggml-tables.js: GENERATED from the C library's tables by scripts/gen-ggml-tables.mjs (make tables).
// Do not edit: change c/src/ggml/ggml.c or c/src/alloc/galloc-planner.c and run make tables;
// tests/js/ggml-tables.test.js fails when this file and the C tables differ.

/** the ggml version the tables are those of */
export const GGML_VERSION = ${JSON.stringify(t.ggml)};

/** @type {Record<string, [number, number]>} type name -> [block size, bytes per block], in enum order */
export const TYPES = {
${types}
};

/** every op name as ggml_op_name() prints it, in enum order */
export const OPS = ${list(t.ops)};

/** ops that may take over a parent's memory (the planner's galloc_op_can_inplace) */
export const INPLACE_OP_NAMES = ${list(t.inplace_ops)};

/** unary ops (ggml_unary_op_name), in enum order */
export const UNARY_OPS = ${list(t.unary_ops)};

/** gated linear units (ggml_glu_op_name), in enum order */
export const GLU_OPS = ${list(t.glu_ops)};

/** tensor flags in document spelling, in bit order */
export const FLAGS = ${list(t.flags)};
`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const galloc = await loadGalloc();
  writeFileSync(out, tablesModule(galloc.tables()));
  console.log(`gen-ggml-tables: wrote ${path.relative(root, out)}`);
}
