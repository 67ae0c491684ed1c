// bench-wasm.mjs: planning time in the WebAssembly module under Node, on bench/documents.txt.
//
// Same documents and method as bench-docs.c (the module times itself with
// performance.now(), so JS-side JSON handling is not counted); writes JSON lines.
// Each document is first planned, unmeasured, for 250 ms: V8 runs new WebAssembly code
// through its baseline compiler and swaps in optimised code (compiled in the background)
// only for what turns out hot, so a short first run (a 70-node graph takes microseconds)
// would time the unoptimised code (3x slower on llama-tiny).
// The module is the benchmark build (bench/bench.mk: the UI's module plus the timing code).
// A preset's document comes from the release CLI (`galloc preset NAME`, as bench-docs builds it):
// the module lists only the UI's presets, not the benchmark baselines.
// Usage: node bench/bench-wasm.mjs [LIST [OUT.jsonl [MODULE.mjs]]]
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadGalloc } from '../web/src/core/galloc.js';

const [listPath = 'bench/documents.txt', outPath, modulePath = 'build/wasm-bench/galloc.mjs'] = process.argv.slice(2);
const moduleFile = path.resolve(modulePath);
const factory = (await import(pathToFileURL(moduleFile).href)).default;
const galloc = await loadGalloc({ factory, wasmBinary: readFileSync(moduleFile.replace(/\.mjs$/, '.wasm')) });
const lines = [];
for (const line of readFileSync(listPath, 'utf8').split('\n')) {
  const [kind, name, runs] = line.trim().split(/\s+/);
  if (!kind || kind.startsWith('#')) continue;
  const native = { preset: ['build/rel/galloc', ['preset', name]], synthetic: ['build/rel/bench-docs', ['--print', name]] }[kind];
  const text = native ? execFileSync(native[0], native[1], { encoding: 'utf8', maxBuffer: 1 << 28 }) : readFileSync(name, 'utf8');
  for (const until = performance.now() + 250; performance.now() < until;) galloc.timePlan(text, 5); // warm-up
  const t = galloc.timePlan(text, Number(runs));
  const graph = name.split('/').pop().replace(/\.graph\.json$/, '');
  lines.push(JSON.stringify({ graph, ...t }));
}
const text = lines.join('\n') + '\n';
if (outPath) writeFileSync(outPath, text);
else process.stdout.write(text);
