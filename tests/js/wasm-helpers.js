// wasm-helpers.js: what the wasm-*.test.js files share: loading the real module (with a
// clear failure when it has not been built), running the native CLI as the oracle, reading
// golden files, and comparing two plan documents the way spec/graph-format.md defines
// plan equality (chunk sizes of every buffer; buffer, chunk and offset of every tensor).

import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

import { loadGalloc } from '../../web/src/core/galloc.js';

/** the repository root */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const GOLDEN_DIR = path.join(ROOT, 'tests/golden');
export const WASM_FILES = ['build/wasm/galloc.wasm', 'build/wasm/galloc.mjs'];
export const CLI = path.join(ROOT, 'build/rel/galloc');

/**
 * The shared module instance; throws a clear message when the build is missing (call it at
 * the top of a test file, with top-level await, so the whole file fails with that message).
 * @returns {Promise<import('../../web/src/core/galloc.js').Galloc>}
 */
export async function loadWasm() {
  const missing = WASM_FILES.filter((f) => !existsSync(path.join(ROOT, f)));
  if (missing.length > 0) {
    throw new Error(`${missing.join(' and ')} missing: build the WebAssembly module first (make wasm)`);
  }
  return loadGalloc();
}

/** true when the native CLI has been built */
export function haveCli() {
  return existsSync(CLI);
}

/** throw a clear message when the native CLI has not been built */
export function requireCli() {
  if (!haveCli()) throw new Error('build/rel/galloc is missing: build the native CLI first (make cli)');
}

/**
 * Run the native CLI with a document on stdin.
 * @param {string[]} args e.g. ['plan', '-']
 * @param {string} [input]
 * @returns {{ status: number, stdout: string, stderr: string }}
 */
export function runCli(args, input) {
  requireCli();
  const r = spawnSync(CLI, args, { input, encoding: 'utf8', maxBuffer: 512 << 20, timeout: 60000 }); // a hang fails the test
  if (r.error) throw r.error;
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

/**
 * The native CLI's verdict on document bytes (`galloc plan -`): exit status, message without the
 * "galloc: -: " prefix, and the plan when it planned.
 * @param {Uint8Array|string} bytes
 * @returns {{ status: number, message: string, plan: object|null }}
 */
export function cliVerdict(bytes) {
  const r = runCli(['plan', '-'], Buffer.from(bytes));
  return { status: r.status, message: r.stderr.trim().replace(/^galloc: -: /, ''), plan: r.status === 0 ? JSON.parse(r.stdout) : null };
}

/**
 * The native CLI's plan of a graph document (JSON text), as text.
 * @param {string} graphText
 * @returns {string}
 */
export function cliPlanText(graphText) {
  const r = runCli(['plan', '-'], graphText);
  if (r.status !== 0) throw new Error(`galloc plan failed (exit ${r.status}): ${r.stderr.trim()}`);
  return r.stdout;
}

/**
 * The library's message for a document the native CLI rejects: its stderr without the
 * "galloc: -: " prefix the CLI adds.
 * @param {string} graphText
 * @returns {{ status: number, message: string }}
 */
export function cliError(graphText) {
  const r = runCli(['plan', '-'], graphText);
  return { status: r.status, message: r.stderr.trim().replace(/^galloc: (-: )?/, '') };
}

/** names NAME of every tests/golden/NAME.graph.json that has a NAME.plan.json, sorted */
export function goldenNames() {
  return readdirSync(GOLDEN_DIR)
    .filter((f) => f.endsWith('.graph.json'))
    .map((f) => f.slice(0, -'.graph.json'.length))
    .filter((n) => existsSync(path.join(GOLDEN_DIR, `${n}.plan.json`)))
    .sort();
}

/**
 * @param {string} name
 * @param {'graph'|'plan'} kind
 * @returns {string} tests/golden/NAME.KIND.json
 */
export function goldenText(name, kind) {
  return readFileSync(path.join(GOLDEN_DIR, `${name}.${kind}.json`), 'utf8');
}

/** @param {number|string} v a document number (decimal strings past 2^53) @returns {bigint} */
const big = (v) => BigInt(v);

/**
 * The differences between two plan documents under the spec's equality: every buffer's
 * chunk_sizes, and every tensor's buffer/chunk/offset (null only equals null). Empty when
 * equal; otherwise short readable lines, the first 20.
 * @param {any} actual
 * @param {any} expected
 * @returns {string[]}
 */
export function planDifferences(actual, expected) {
  const out = [];
  const nb = Math.max(actual.buffers.length, expected.buffers.length);
  if (actual.buffers.length !== expected.buffers.length) {
    out.push(`buffers: ${actual.buffers.length} entries, expected ${expected.buffers.length}`);
  }
  for (let b = 0; b < nb; b++) {
    const a = actual.buffers[b]?.chunk_sizes?.map(big).join(',');
    const e = expected.buffers[b]?.chunk_sizes?.map(big).join(',');
    if (a !== e) out.push(`buffers[${b}].chunk_sizes: [${a}], expected [${e}]`);
  }
  if (actual.tensors.length !== expected.tensors.length) {
    out.push(`tensors: ${actual.tensors.length} entries, expected ${expected.tensors.length}`);
  }
  const nt = Math.max(actual.tensors.length, expected.tensors.length);
  for (let i = 0; i < nt && out.length < 20; i++) {
    const a = actual.tensors[i];
    const e = expected.tensors[i];
    if (a === null || e === null || a === undefined || e === undefined) {
      if (a !== e) out.push(`tensors[${i}]: ${JSON.stringify(a)}, expected ${JSON.stringify(e)}`);
      continue;
    }
    for (const key of ['buffer', 'chunk', 'offset']) {
      if (big(a[key]) !== big(e[key])) out.push(`tensors[${i}].${key}: ${a[key]}, expected ${e[key]}`);
    }
  }
  return out.slice(0, 20);
}
