// bench-transfer.mjs: what it costs to bring a kept document's graph and plan from the module to JS,
// as JSON text (doc_graph / doc_plan + JSON.parse: the path before galloc-binary.h) and as binary
// words (doc_graph_binary / doc_plan_binary + galloc-binary.js), with the bytes that cross.
// Prints one line per document and path (median of the runs; nothing is asserted).
// Usage: node bench/bench-transfer.mjs [RUNS [TENSORS]]   (a chain of TENSORS SCALE tensors, 300,000 by
// default, as tests/e2e/e2e-hostile.mjs imports; then the golden-real graphs of the largest sizes)
import { readFileSync } from 'node:fs';
import { loadGalloc } from '../web/src/core/galloc.js';

const [runs = 5, tensors = 300000] = process.argv.slice(2).map(Number);
const g = await loadGalloc();
const m = g.m;

/** the median of runs of fn, ms */
function time(fn) {
  const t = [];
  for (let k = 0; k < runs; k++) {
    const t0 = performance.now();
    fn();
    t.push(performance.now() - t0);
  }
  return t.sort((a, b) => a - b)[t.length >> 1];
}

/** bytes of a result export's answer for the document */
function resultBytes(d, exp) {
  const r = m[exp](d.handle) >>> 0;
  const n = m._galloc_js_result_length() >>> 0;
  m._galloc_js_free(r);
  return n;
}

function chain(n) {
  const parts = ['{"tensors": [{"name": "y", "op": "NONE", "type": "f32", "ne": [4], "flags": ["input"]}'];
  for (let i = 1; i <= n; i++) parts.push(`,\n{"name": "y", "op": "SCALE", "type": "f32", "ne": [4], "src": [${i - 1}]}`);
  parts.push(`], "outputs": [${n}]}\n`);
  return parts.join('');
}

const docs = [[`chain of ${tensors} tensors`, chain(tensors)]];
for (const f of ['llama4.moe.prompt-n64.cpu.2buft']) {
  try { docs.push([f, readFileSync(`tests/golden-real/${f}.graph.json`, 'utf8')]); } catch { /* not there */ }
}
const mb = (n) => `${(n / 1048576).toFixed(1)} MB`;
for (const [name, text] of docs) {
  const d = g.open(text);
  const json = { graph: resultBytes(d, '_galloc_js_doc_graph'), plan: resultBytes(d, '_galloc_js_doc_plan') };
  const bin = { graph: resultBytes(d, '_galloc_js_doc_graph_binary'), plan: resultBytes(d, '_galloc_js_doc_plan_binary') };
  for (let k = 0; k < 2; k++) { JSON.parse(d.graphText()); JSON.parse(d.planText()); d.graph(); d.plan(); } // warm-up
  const tj = { graph: time(() => JSON.parse(d.graphText())), plan: time(() => JSON.parse(d.planText())) };
  const tb = { graph: time(() => d.graph()), plan: time(() => d.plan()) };
  const n = d.graph().tensors.length;
  console.log(`${name} (${n} tensors): JSON  graph ${tj.graph.toFixed(0)} ms (${mb(json.graph)}), plan ${tj.plan.toFixed(0)} ms (${mb(json.plan)}), both ${(tj.graph + tj.plan).toFixed(0)} ms`);
  console.log(`${name} (${n} tensors): binary graph ${tb.graph.toFixed(0)} ms (${mb(bin.graph)}), plan ${tb.plan.toFixed(0)} ms (${mb(bin.plan)}), both ${(tb.graph + tb.plan).toFixed(0)} ms`);
  d.close();
}
