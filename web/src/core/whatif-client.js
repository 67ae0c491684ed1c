// whatif-client.js: the page's side of the what-if worker, as promises.
//
// One request at a time: run() while another runs cancels it (its promise rejects with code
// 'cancelled'); cancel() ends a run at once by terminating the worker, whose module is
// busy in C and cannot be interrupted otherwise. The next run starts a fresh worker.
//
// Example usage:
//
//   const { result, ms } = await runWhatif({ kind: 'csv', text, capacity: '1048576', budgetMs: 20000 });
//   cancelWhatif(); // from a Stop button

import { answerError } from './whatif-protocol.js';

/**
 * @typedef {{postMessage: (m: any) => void, terminate: () => void,
 *   onmessage: ((e: {data: any}) => void)|null, onerror: ((e: any) => void)|null}} WorkerLike
 */

/** @returns {WorkerLike} the bundled what-if worker */
function bundledWorker() {
  return new Worker(new URL('./whatif-worker.js', import.meta.url), { type: 'module' });
}

/**
 * A runner over its own worker.
 * @param {() => WorkerLike} [makeWorker] (tests pass a fake)
 * @returns {{run: (request: import('./whatif-protocol.js').WhatifRequest) => Promise<{result: import('./galloc.js').WhatifResult, ms: number}>,
 *   cancel: () => boolean, dispose: () => void, readonly busy: boolean}}
 */
export function createWhatifRunner(makeWorker = bundledWorker) {
  let worker = null;
  let pending = null; // {id, resolve, reject}
  let nextId = 1;

  const drop = () => {
    if (worker) worker.terminate();
    worker = null;
  };
  const settle = (fn) => {
    const p = pending;
    pending = null;
    if (p) fn(p);
  };
  const ensure = () => {
    if (worker) return worker;
    const w = makeWorker();
    w.onmessage = (e) => {
      const a = e.data;
      if (w !== worker || !pending || a.id !== pending.id) return; // a cancelled run's late answer
      settle((p) => (a.ok ? p.resolve({ result: a.result, ms: a.ms }) : p.reject(answerError(a.error))));
    };
    w.onerror = (e) => {
      if (w !== worker) return;
      drop();
      settle((p) => p.reject(answerError({ message: `the what-if worker failed: ${e?.message ?? 'unknown error'}`, code: 'module-aborted' })));
    };
    worker = w;
    return w;
  };

  const cancel = () => {
    if (!pending) return false;
    drop();
    settle((p) => p.reject(answerError({ message: 'cancelled', code: 'cancelled' })));
    return true;
  };

  return {
    run(request) {
      cancel();
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending = { id, resolve, reject };
        try {
          ensure().postMessage({ ...request, id });
        } catch (e) {
          drop();
          settle((p) => p.reject(answerError({ message: `could not start the what-if worker: ${e.message}`, code: 'module-aborted' })));
        }
      });
    },
    cancel,
    dispose() {
      cancel();
      drop();
    },
    get busy() { return pending !== null; },
  };
}

let shared = null;

/**
 * Run a what-if analysis in the page's worker (created on first use).
 * @param {import('./whatif-protocol.js').WhatifRequest} request
 * @returns {Promise<{result: import('./galloc.js').WhatifResult, ms: number}>} ms: the call's time in the worker;
 *   rejects with the library's error (code 'invalid-input', ...), or code 'cancelled'
 */
export function runWhatif(request) {
  shared ??= createWhatifRunner();
  return shared.run(request);
}

/**
 * Stop the running analysis, if any (its promise rejects with code 'cancelled').
 * @returns {boolean} whether one was running
 */
export function cancelWhatif() {
  return shared ? shared.cancel() : false;
}
