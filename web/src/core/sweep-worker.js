// sweep-worker.js: a Web Worker that computes a model's compute buffer sizes at many settings on
// its own module instance, so a sweep never blocks the page. See sweep-client.js.
//
// Request: {id, source: {gguf: Uint8Array} | {card: string}, points: Array<ModelSettings | {memory: string}>}:
// settings give the compute buffer sizes (GallocModel.sizes), {memory: flags} llama.cpp's memory
// breakdown for that line of flags (GallocModel.memory, the devices' sweep).
// Answers: {id, progress: {done, total}} after each point, then {id, ok: true, results} (per
// point its ModelSizes or breakdown, or {error}), or {id, ok: false, error: {message, code}}.
import { loadGalloc } from './galloc.js';

self.onmessage = async (event) => {
  const { id, source, points } = event.data;
  let model = null;
  try {
    const galloc = await loadGalloc();
    model = galloc.openModel(source);
    const results = [];
    for (let i = 0; i < points.length; i++) {
      try {
        const p = points[i];
        results.push(typeof p.memory === 'string' ? model.memory(p.memory) : model.sizes(p));
      } catch (e) {
        results.push({ error: e.message });
      }
      self.postMessage({ id, progress: { done: i + 1, total: points.length } });
    }
    self.postMessage({ id, ok: true, results });
  } catch (e) {
    self.postMessage({ id, ok: false, error: { message: e.message, code: e.code ?? 'module-aborted' } });
  } finally {
    if (model) model.close();
  }
};
