// whatif-worker.js: a Web Worker that runs what-if analyses on its own module instance, so
// that an exact search of many seconds never blocks the page. See whatif-client.js.
import { loadGalloc } from './galloc.js';
import { answerWhatif } from './whatif-protocol.js';

self.onmessage = async (event) => {
  const request = event.data;
  let galloc;
  try {
    galloc = await loadGalloc(); // once; a module that stopped is replaced by the next load
  } catch (e) {
    self.postMessage({ id: request.id, ok: false, error: { message: `could not load the allocator module: ${e.message}`, code: 'module-aborted' } });
    return;
  }
  self.postMessage(answerWhatif(galloc, request));
};
