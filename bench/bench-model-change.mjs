// bench-model-change.mjs: what a settings change of the model page costs in the module and at its
// boundary before the plan can be drawn (model-state.js rebuild + state.js loadGeneratedGraph): the
// graph built for the settings, its sizes, the graph document and its plan as JS objects. Per card,
// the median and least of the changes and the bytes that cross the boundary (JSON path: the graph's
// text out and back in, counted in UTF-16 units, and the plan's; binary: the two binaries); printed,
// nothing asserted.
// Usage: node bench/bench-model-change.mjs [WEB_SRC]   (WEB_SRC: another checkout's web/src, to time
// it against this one; it loads that checkout's build/wasm module). Both shapes of GallocModel.build
// are timed as the page used them: {sizes, graph, graphText} (the graph's JSON handed back to
// Galloc.open, before galloc-binary.h) and {sizes, document} (the document kept by the build).
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const src = pathToFileURL(path.resolve(process.argv[2] ?? 'web/src')).href;
const { loadGalloc } = await import(`${src}/core/galloc.js`);
const g = await loadGalloc();

/** one change as the page makes it: the graph and plan objects, the document left open; bytes that crossed */
function change(m, settings) {
  const r = m.build(settings);
  if (r.document) {
    const graph = r.document.graph();
    const plan = r.document.plan();
    return { sizes: r.sizes, graph, plan, d: r.document, bytes: binaryBytes(r.document) };
  }
  const d = g.open(r.graphText); // the JSON path: the text handed back, read and planned again
  const planText = d.planText();
  return { sizes: r.sizes, graph: r.graph, plan: JSON.parse(planText), d, bytes: 2 * r.graphText.length + planText.length };
}

/** bytes of the binary graph and plan of a document (what crossed, measured once more) */
function binaryBytes(d) {
  let n = 0;
  for (const e of ['_galloc_js_doc_graph_binary', '_galloc_js_doc_plan_binary']) {
    const r = g.m[e](d.handle) >>> 0;
    n += g.m._galloc_js_result_length() >>> 0;
    g.m._galloc_js_free(r);
  }
  return n;
}

const contexts = [4096, 8192, 16384, 32768, 8192, 4096, 16384, 32768].flatMap((c) => [c, c, c]); // 24 changes
for (const card of ['gemma-3-4b', 'llama-3.1-70b', 'gpt-oss-120b']) {
  const m = g.openModel({ card });
  const times = [];
  let last = null;
  for (const n_ctx of contexts) {
    const t0 = performance.now();
    const r = change(m, { n_ctx });
    times.push(performance.now() - t0);
    r.n_ctx = n_ctx;
    last?.d.close();
    last = r;
  }
  const tensors = last.graph.tensors.length;
  const bytes = last.bytes;
  last.d.close();
  m.close();
  const sorted = times.slice(2).sort((a, b) => a - b); // the first two warm up
  console.log(`${card} (${tensors} tensors at n_ctx ${last.n_ctx}, ${(bytes / 1048576).toFixed(2)} MB crossing): a change ${sorted[sorted.length >> 1].toFixed(1)} ms (median of ${sorted.length}; min ${sorted[0].toFixed(1)}, max ${sorted.at(-1).toFixed(1)})`);
}
