// report.mjs: one table and build/bench.json from the three benchmark runs.
//
// Reads build/bench-api.json and build/bench-api-tuned.json (ggml_gallocr on graphs built
// with the ggml API, from bench-plan, stock and tuned glibc), build/bench-instr.json
// (instructions per plan under callgrind), build/bench-docs.jsonl (native planner on documents) and
// build/bench-wasm.jsonl (the same in WebAssembly), prints them side by side
// with upstream's figures where it has them, and writes build/bench.json.
import { readFileSync, writeFileSync } from 'node:fs';

const readLines = (path) => readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
const api = JSON.parse(readFileSync('build/bench-api.json', 'utf8'));
const tuned = new Map(JSON.parse(readFileSync('build/bench-api-tuned.json', 'utf8')).results.map((r) => [r.graph, r]));
const instr = JSON.parse(readFileSync('build/bench-instr.json', 'utf8'));
const instrOf = new Map(instr.results.filter((r) => r.program === 'bench-plan').map((r) => [r.graph, r.instructions_per_plan]));
const docs = readLines('build/bench-docs.jsonl');
const wasm = new Map(readLines('build/bench-wasm.jsonl').map((r) => [r.graph, r]));
// upstream ggml 0.21.0, ../shared/bench/upstream-timings.md (median ms): reference data measured
// elsewhere (a 2-vCPU Xeon VM, static -O3 -march=native build), not on this machine
// (random 10k: the lowleaf graphs are within upstream's range; the other four make it abort)
const upstream = {
  'llama-7b-pp512': 0.154, 'llama-7b-decode': 0.151, 'llama-70b-pp512': 0.404,
  'golden llama-7b-like': 0.154, 'golden llama-7b-like-2buft': 0.148, 'golden llama-7b-decode': 0.151,
};
const upstreamText = (graph) => upstream[graph] ?? (graph.startsWith('golden rand-n10000-lowleaf') ? '3.97-6.15' :
  graph.startsWith('golden rand-n10000') ? 'aborts' : '-');

const pad = (s, n) => String(s).padStart(n);
console.log('ggml_gallocr (new_n + reserve_n + alloc_graph + free, fresh allocator, graph built with the ggml API)');
console.log('glibc stock (as a user runs it); "tuned" = freed memory kept (M_TRIM/MMAP_THRESHOLD), labelled;');
console.log(`instructions per plan: ${instr.valgrind ? `callgrind (${instr.valgrind})` : 'valgrind not found, not counted'};`);
console.log('upstream ms: reference data of ../shared/bench/upstream-timings.md, measured on another machine');
console.log(`${'graph'.padEnd(38)}${pad('nodes', 8)}${pad('median ms', 11)}${pad('min', 8)}${pad('max', 8)}${pad('ns/node', 9)}` +
  `${pad('faults', 8)}${pad('tuned ms', 10)}${pad('instr/plan', 12)}${pad('upstream ms', 13)}`);
for (const r of api.results) {
  const t = tuned.get(r.graph);
  const ins = instrOf.get(r.graph);
  console.log(`${r.graph.padEnd(38)}${pad(r.nodes, 8)}${pad(r.median_ms.toFixed(3), 11)}${pad(r.min_ms.toFixed(3), 8)}` +
    `${pad(r.max_ms.toFixed(3), 8)}${pad(Math.round((r.median_ms * 1e6) / r.nodes), 9)}${pad(r.faults_per_plan.toFixed(1), 8)}` +
    `${pad(t ? t.median_ms.toFixed(3) : '-', 10)}${pad(ins ?? '-', 12)}${pad(upstreamText(r.graph), 13)}`);
}
// the harness that also compiles against upstream ggml: instructions per plan, and upstream's
// counts for the same source measured on this machine class (bench/upstream-instructions.json)
const upstreamInstr = JSON.parse(readFileSync('bench/upstream-instructions.json', 'utf8'));
const upOf = new Map(upstreamInstr.results.map((r) => [r.graph, r.instructions_per_plan]));
console.log(`\nbench-ggml-api (ggml's public API only; the same source compiled against upstream: ${upstreamInstr.measured})`);
console.log(`${'graph'.padEnd(38)}${pad('instr/plan', 12)}${pad('upstream', 12)}${pad('ratio', 8)}`);
for (const r of instr.results.filter((x) => x.program === 'bench-ggml-api')) {
  const u = upOf.get(r.graph);
  console.log(`${r.graph.padEnd(38)}${pad(r.instructions_per_plan, 12)}${pad(u ?? '-', 12)}${pad(u ? (r.instructions_per_plan / u).toFixed(3) : '-', 8)}`);
}
console.log('\nplanner on documents (the CLI and WASM path), native vs WebAssembly under Node');
console.log(`${'graph'.padEnd(38)}${pad('nodes', 7)}${pad('native ms', 11)}${pad('ns/node', 9)}${pad('wasm ms', 10)}${pad('wasm/nat', 10)}${pad('heap KiB', 10)}`);
const rows = [];
for (const r of docs) {
  const w = wasm.get(r.graph);
  const ratio = w ? w.median_ms / r.median_ms : null;
  rows.push({ graph: r.graph, nodes: r.nodes, native_median_ms: r.median_ms, native_min_ms: r.min_ms, wasm_median_ms: w?.median_ms ?? null,
    wasm_over_native: ratio, heap_bytes: r.heap_bytes, upstream_median_ms: upstream[r.graph] ?? null });
  console.log(`${r.graph.padEnd(38)}${pad(r.nodes, 7)}${pad(r.median_ms.toFixed(3), 11)}${pad(Math.round((r.median_ms * 1e6) / r.nodes), 9)}` +
    `${pad(w ? w.median_ms.toFixed(3) : '-', 10)}${pad(ratio ? ratio.toFixed(2) : '-', 10)}${pad(Math.round(r.heap_bytes / 1024), 10)}`);
}
writeFileSync('build/bench.json', JSON.stringify({ glibc: 'stock', api: api.results, api_tuned: [...tuned.values()],
  instructions: instr, documents: rows }, null, 2) + '\n');
console.log('\nwrote build/bench.json');
