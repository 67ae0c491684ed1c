// bench-wasm.mjs: planning time in the WebAssembly module under Node, on bench/documents.txt.
//
// Same documents and method as bench-docs.c (the module times itself with
// performance.now(), so JS-side JSON handling is not counted); writes JSON lines.
import { readFileSync, writeFileSync } from 'node:fs';
import { loadGalloc } from '../web/src/core/galloc.js';

const [listPath = 'bench/documents.txt', outPath] = process.argv.slice(2);
const galloc = await loadGalloc();
const lines = [];
for (const line of readFileSync(listPath, 'utf8').split('\n')) {
  const [kind, name, runs] = line.trim().split(/\s+/);
  if (!kind || kind.startsWith('#')) continue;
  const text = kind === 'preset' ? galloc.presetText(name) : readFileSync(name, 'utf8');
  const t = galloc.timePlan(text, Number(runs));
  const graph = name.split('/').pop().replace(/\.graph\.json$/, '');
  lines.push(JSON.stringify({ graph, ...t }));
}
const text = lines.join('\n') + '\n';
if (outPath) writeFileSync(outPath, text);
else process.stdout.write(text);
