// explain-state.js: the explanation panels' state (peak panel, memory chart, compare view),
// in signals, and the only code that changes it.
//
// The explanation of the graph on screen is computed by the WASM module (galloc.explain) once
// per plan, in state.js (`explanation`, re-exported here); the comparison (galloc.explainCompare) while the compare view is open
// and has a second graph. (Brushing the memory chart calls state.js showSteps.)

import { signal, computed } from '@preact/signals';
import { galloc, graph, explanation } from './state.js';

// the explanation of the plan on screen: one computed signal, state.js's (the tooltip, the
// layer slider and these panels all read the same result, computed once per plan)
export { explanation };

/** the peak table shows one row per layer-folded name (true) or per tensor */
export const peakFolded = signal(true);
export function setPeakFolded(v) { peakFolded.value = Boolean(v); }

// ---- compare two plans -----------------------------------------------------------

/** the compare view is open */
export const compareOpen = signal(false);
/** the graph compared with the one on screen: {label, doc}, or null */
export const compareOther = signal(null);
/** rows per layer-folded name */
export const compareFold = signal(true);
/** why the other graph could not be used, or null */
export const compareError = signal(null);

/** {diff, a, b} of galloc.explainCompare(graph on screen, other), or null */
export const comparison = computed(() => {
  const g = galloc.value;
  const doc = graph.value;
  const other = compareOther.value;
  if (!compareOpen.value || !g || !doc || !other) return null;
  try {
    return g.explainCompare(doc, other.doc, { fold: compareFold.value });
  } catch (e) {
    return { error: e.message };
  }
});

export function setCompareOpen(v) { compareOpen.value = Boolean(v); }
export function setCompareFold(v) { compareFold.value = Boolean(v); }

/** compare with a preset */
export function compareWithPreset(name) {
  const g = galloc.peek();
  if (!g) return;
  try {
    compareOther.value = { label: `preset ${name}`, doc: g.preset(name) };
    compareError.value = null;
  } catch (e) {
    compareError.value = e.message;
  }
}

/** compare with a graph document given as JSON text (an imported file) */
export function compareWithText(text, label) {
  const g = galloc.peek();
  if (!g) return;
  try {
    compareOther.value = { label, doc: g.normalize(text) };
    compareError.value = null;
  } catch (e) {
    compareError.value = `${label}: ${e.message}`; // the graph compared before stays
  }
}
