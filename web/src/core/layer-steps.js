// layer-steps.js: the steps each layer of a model runs in, from the layer index every
// tensor's name carries (parsed in C, galloc-layer.h, and handed over with the explain
// analysis), so the timeline can jump to a layer and a tooltip can say "layer 12 of 80".

/**
 * Per layer, the first and last step of its nodes.
 * @param {ArrayLike<number>} layers per tensor index, its layer (-1: none)
 * @param {number[]} nodes the graph's nodes, in step order (tensor indices)
 * @param {number} count number of layers (1 + the largest index)
 * @returns {Array<{layer: number, first: number, last: number}|null>} by layer; null for a layer no node carries
 */
export function layerSteps(layers, nodes, count) {
  const out = new Array(Math.max(0, count)).fill(null);
  nodes.forEach((t, s) => {
    const l = layers[t];
    if (l === undefined || l < 0 || l >= count) return;
    const r = out[l];
    if (r) r.last = s; else out[l] = { layer: l, first: s, last: s };
  });
  return out;
}

/**
 * "layer 12 of 80", or '' for a tensor without a layer.
 * @param {number} layer
 * @param {number} count
 * @returns {string}
 */
export function layerLabel(layer, count) {
  return layer >= 0 && layer < count ? `layer ${layer} of ${count}` : '';
}
