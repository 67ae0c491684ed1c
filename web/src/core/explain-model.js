// explain-model.js: pure helpers over a "galloc-explain" result (galloc.js explain()), for the
// peak panel, the memory chart and the timeline. The numbers are the library's; these functions
// only select and lay them out.

/**
 * The tensors holding memory of buffer type `buffer` at `step` (-1: before the first node),
 * most bytes first (ties: lower index), from the holding intervals the library computed.
 * @param {import('./galloc.js').ExplainResult} ex
 * @param {number} buffer
 * @param {number} step
 * @returns {number[]} tensor indices
 */
export function liveAtStep(ex, buffer, step) {
  const out = [];
  for (let t = 0; t < ex.n_tensors; t++) {
    if (ex.hold_buffer[t] === buffer && ex.hold_first[t] <= step && step <= ex.hold_last[t]) out.push(t);
  }
  const bytes = (t) => BigInt(ex.hold_bytes[t]);
  return out.sort((a, b) => (bytes(a) === bytes(b) ? a - b : bytes(a) > bytes(b) ? -1 : 1));
}

/**
 * The largest value of a series whose entries may be decimal strings (past 2^53).
 * @param {Array<number|string>} series
 * @returns {bigint}
 */
export function seriesMax(series) {
  let m = 0n;
  for (const v of series) {
    const b = BigInt(v);
    if (b > m) m = b;
  }
  return m;
}

/**
 * The layer text of a tensor: "layer 12 of 80", or '' when its name carries none.
 * @param {import('./galloc.js').ExplainResult} ex
 * @param {number} layer
 * @returns {string}
 */
export function layerText(ex, layer) {
  return layer >= 0 ? `layer ${layer} of ${ex.n_layers}` : '';
}

/**
 * A folded row's layers: "layer 3 of 80", "layers 0–79 of 80", ''.
 * @param {import('./galloc.js').ExplainResult} ex
 * @param {{first_layer: number, last_layer: number}} g
 * @returns {string}
 */
export function layersText(ex, g) {
  if (g.first_layer < 0) return '';
  if (g.first_layer === g.last_layer) return `layer ${g.first_layer} of ${ex.n_layers}`;
  return `layers ${g.first_layer}–${g.last_layer} of ${ex.n_layers}`;
}

/**
 * A step as the panels write it.
 * @param {number} step
 * @returns {string}
 */
export function stepText(step) {
  return step < 0 ? 'before the first node' : `step ${step}`;
}

/**
 * A signed byte difference for people: "+1.00 GiB", "−512 B", "0 B".
 * @param {number|string|bigint} diff
 * @param {(b: bigint) => string} formatBytes
 * @returns {string}
 */
export function formatDiff(diff, formatBytes) {
  const d = BigInt(diff);
  if (d === 0n) return '0 B';
  return `${d < 0n ? '−' : '+'}${formatBytes(d < 0n ? -d : d)}`;
}
