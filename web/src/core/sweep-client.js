// sweep-client.js: the page's side of the sweep worker (sweep-worker.js), as a promise.
//
// One sweep at a time: starting another, or cancel(), terminates the worker (its module is busy
// in C and cannot be interrupted otherwise); the cancelled promise rejects with code 'cancelled'.

/** @returns {Worker} */
function bundledWorker() {
  return new Worker(new URL('./sweep-worker.js', import.meta.url), { type: 'module' });
}

/**
 * @param {() => any} [makeWorker] (tests pass a fake)
 */
export function createSweepRunner(makeWorker = bundledWorker) {
  let worker = null;
  let pending = null;
  let nextId = 1;
  const stop = (why) => {
    if (worker) worker.terminate();
    worker = null;
    const p = pending;
    pending = null;
    if (p) p.reject(Object.assign(new Error(why), { code: 'cancelled' }));
  };
  return {
    /**
     * @param {{gguf: Uint8Array} | {card: string}} source
     * @param {object[]} points settings, one per point
     * @param {(done: number, total: number) => void} [onProgress]
     * @returns {Promise<object[]>} per point its sizes, or {error}
     */
    run(source, points, onProgress) {
      stop('another sweep started');
      const id = nextId++;
      const w = makeWorker();
      worker = w;
      return new Promise((resolve, reject) => {
        pending = { resolve, reject };
        w.onmessage = (e) => {
          const a = e.data;
          if (w !== worker || a.id !== id) return;
          if (a.progress) { if (onProgress) onProgress(a.progress.done, a.progress.total); return; }
          pending = null;
          w.terminate();
          worker = null;
          if (a.ok) resolve(a.results);
          else reject(Object.assign(new Error(a.error.message), { code: a.error.code }));
        };
        w.onerror = (e) => {
          if (w !== worker) return;
          stop(`the sweep worker failed: ${e?.message ?? 'unknown error'}`);
        };
        w.postMessage({ id, source: source.gguf ? { gguf: source.gguf.slice() } : source, points });
      });
    },
    cancel() { stop('cancelled'); },
    get busy() { return pending !== null; },
  };
}
