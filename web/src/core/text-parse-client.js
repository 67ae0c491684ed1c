// text-parse-client.js: the page's side of the graph-text worker (text-parse-worker.js).
//
// One parse at a time: a newer parse cancels the one in flight (its promise rejects with code
// 'cancelled') by terminating the worker, busy in a parse that cannot be interrupted otherwise,
// so a stale 300,000-line parse costs nothing further; the next parse starts a fresh worker.
//
//   const parser = createTextParser();
//   const r = await parser.parse(text); // {errors} | {json, meta} (text-parse-protocol.js)

import { unpackParse } from './text-parse-protocol.js';

/** @returns {Worker} the bundled worker */
function bundledWorker() {
  return new Worker(new URL('./text-parse-worker.js', import.meta.url), { type: 'module' });
}

/**
 * @param {() => any} [makeWorker] (tests pass one that parses in this thread, later)
 * @returns {{parse: (text: string) => Promise<object>, cancel: () => void, readonly busy: boolean}}
 */
export function createTextParser(makeWorker = bundledWorker) {
  let worker = null;
  let pending = null; // {id, resolve, reject}
  let nextId = 1;
  const fail = (p, message, code) => p.reject(Object.assign(new Error(message), { code }));
  const stop = () => {
    const p = pending;
    pending = null;
    if (p) {
      worker?.terminate();
      worker = null;
      fail(p, 'a newer text replaced it', 'cancelled');
    }
  };
  const ensure = () => {
    if (worker) return worker;
    const w = makeWorker();
    w.onmessage = (e) => {
      const a = e.data;
      if (w !== worker || !pending || a.id !== pending.id) return; // a cancelled parse's late answer
      const p = pending;
      pending = null;
      if (a.fault) fail(p, `the text parser failed: ${a.fault}`, 'parser-fault');
      else p.resolve(unpackParse(a));
    };
    w.onerror = (e) => {
      if (w !== worker) return;
      worker = null;
      w.terminate();
      const p = pending;
      pending = null;
      if (p) fail(p, `the text parser failed: ${e?.message ?? 'the worker stopped'}`, 'parser-fault');
    };
    worker = w;
    return w;
  };
  return {
    parse(text) {
      stop();
      const id = nextId++;
      const w = ensure();
      return new Promise((resolve, reject) => {
        pending = { id, resolve, reject };
        w.postMessage({ id, text });
      });
    },
    cancel: stop,
    get busy() { return pending !== null; },
  };
}
