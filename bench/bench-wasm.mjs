// bench-wasm.mjs: planning time in the WebAssembly module under Node, on bench/documents.txt.
//
// Same documents and method as bench-docs.c (the module times itself with
// performance.now(), so JS-side JSON handling is not counted); writes JSON lines.
// Each document is first planned, unmeasured, for 250 ms: V8 runs new WebAssembly code
// through its baseline compiler and swaps in optimised code (compiled in the background)
// only for what turns out hot, so a short first run (a 70-node graph takes microseconds)
// would time the unoptimised code (3x slower on llama-tiny).
import { readFileSync, writeFileSync } from 'node:fs';
import { loadGalloc } from '../web/src/core/galloc.js';

const [listPath = 'bench/documents.txt', outPath] = process.argv.slice(2);
const galloc = await loadGalloc();
const lines = [];
for (const line of readFileSync(listPath, 'utf8').split('\n')) {
  const [kind, name, runs] = line.trim().split(/\s+/);
  if (!kind || kind.startsWith('#')) continue;
  const text = kind === 'preset' ? galloc.presetText(name) : readFileSync(name, 'utf8');
  for (const until = performance.now() + 250; performance.now() < until;) galloc.timePlan(text, 5); // warm-up
  const t = galloc.timePlan(text, Number(runs));
  const graph = name.split('/').pop().replace(/\.graph\.json$/, '');
  lines.push(JSON.stringify({ graph, ...t }));
}
const text = lines.join('\n') + '\n';
if (outPath) writeFileSync(outPath, text);
else process.stdout.write(text);
