// whatif-protocol.js: the messages between the page and the what-if worker, and the
// worker's side of them as a plain function (so that tests run it without a worker).
//
// A request is {id, kind: 'graph', graph, bufferType, budgetMs} or {id, kind: 'csv', text,
// capacity (decimal string or null), budgetMs}; the answer {id, ok: true, result, ms} or
// {id, ok: false, error: {message, code}}. ms is the call's wall time inside the worker.

/**
 * @typedef {{kind: 'graph', graph: object|string, bufferType?: number, budgetMs?: number}
 *   | {kind: 'csv', text: string, capacity?: string|null, budgetMs?: number}} WhatifRequest
 * @typedef {{id: number, ok: true, result: import('./galloc.js').WhatifResult, ms: number}
 *   | {id: number, ok: false, error: {message: string, code: string}}} WhatifAnswer
 */

/**
 * Run one request on a loaded module; never throws (errors become answers).
 * @param {import('./galloc.js').Galloc} galloc
 * @param {WhatifRequest & {id: number}} request
 * @returns {WhatifAnswer}
 */
export function answerWhatif(galloc, request) {
  const id = request.id;
  const t0 = performance.now();
  try {
    let result;
    if (request.kind === 'graph') {
      result = galloc.whatif(request.graph, { bufferType: request.bufferType ?? 0, budgetMs: request.budgetMs ?? 2000 });
    } else if (request.kind === 'csv') {
      result = galloc.whatifCsv(request.text, { capacity: request.capacity ?? null, budgetMs: request.budgetMs ?? 2000 });
    } else {
      return { id, ok: false, error: { message: `unknown request kind ${JSON.stringify(request.kind)}`, code: 'bad-argument' } };
    }
    return { id, ok: true, result, ms: performance.now() - t0 };
  } catch (e) {
    return { id, ok: false, error: { message: e?.message ?? String(e), code: e?.code ?? 'error' } };
  }
}

/**
 * An answer's error as an Error with its code, as galloc.js throws them.
 * @param {{message: string, code: string}} error
 * @returns {Error & {code: string}}
 */
export function answerError(error) {
  const e = /** @type {Error & {code: string}} */ (new Error(error.message));
  e.code = error.code;
  return e;
}
