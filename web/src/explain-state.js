// explain-state.js: the explanation panels' state (peak panel, memory chart, compare view),
// in signals, and the only code that changes it.
//
// The explanation of the graph on screen is computed by the WASM module (galloc.explain) once
// per plan, in state.js (`explanation`, re-exported here); the comparison (galloc.explainCompare) while the compare view is open
// and has a second graph. (Brushing the memory chart calls state.js showSteps.)

import { signal, computed } from '@preact/signals';
import { galloc, graph, explanation } from './state.js';
import { whatif, whatifOpen, whatifBufferType, setWhatifOpen } from './whatif-state.js';
import { plannerOf } from './core/whatif-model.js';
import { currentModel } from './model-state.js';
import { commandLine } from './core/model-settings.js';

// the explanation of the plan on screen: one computed signal, state.js's (the tooltip, the
// layer slider and these panels all read the same result, computed once per plan)
export { explanation };

/** the peak table shows one row per layer-folded name (true) or per tensor */
export const peakFolded = signal(true);
export function setPeakFolded(v) { peakFolded.value = Boolean(v); }

// ---- compare two plans -----------------------------------------------------------

/** the compare view is open */
export const compareOpen = signal(false);
/** the graph compared with the one on screen: {label, doc}; or ggml's plan of it against an
 * offline planner's packing from the What-if panel: {label, offline: planner name or 'best'}; or null */
export const compareOther = signal(null);
/** rows per layer-folded name */
export const compareFold = signal(true);
/** why the other graph could not be used, or null */
export const compareError = signal(null);

/**
 * {diff, a, b} of galloc.explainCompare(graph on screen, other), or of galloc.explainOffline(graph
 * on screen, the What-if panel's buffer type and planner: then also {planner, bufferType}); {pending}
 * while the What-if analysis of this graph is not there yet; {error}; or null
 */
export const comparison = computed(() => {
  const g = galloc.value;
  const doc = graph.value;
  const other = compareOther.value;
  if (!compareOpen.value || !g || !doc || !other) return null;
  try {
    if (other.offline) return offlineComparison(g, doc, other.offline);
    return g.explainCompare(doc, other.doc, { fold: compareFold.value });
  } catch (e) {
    return { error: e.message };
  }
});

// ggml's plan of doc against the What-if result's packing by planner (the result must be of doc)
function offlineComparison(g, doc, planner) {
  const w = whatif.value;
  const bt = whatifBufferType.value;
  if (!whatifOpen.value || !w || w.kind !== 'graph' || w.graph !== doc || w.bufferType !== bt) {
    return { pending: 'waiting for the What-if analysis of this graph' };
  }
  const name = planner === 'best' ? w.result.best : planner;
  const p = plannerOf(w.result, name);
  if (!p || !p.checked) return { error: `${name}: no checked plan of this buffer type (${p ? 'it fails the checker' : 'not run'})` };
  return { ...g.explainOffline(doc, bt, p, { fold: compareFold.value }), planner: name, bufferType: bt, final: w.final };
}

/**
 * compare ggml's plan with an offline planner's (opens the What-if panel, whose analysis of the
 * graph on screen and buffer type it uses)
 * @param {string} planner 'best', 'exact', 'greedy-by-size', 'greedy-by-breadth'
 */
export function compareWithOffline(planner) {
  setWhatifOpen(true);
  compareOther.value = { label: planner === 'best' ? 'the best offline plan (What-if)' : `the ${planner} plan (What-if)`, offline: planner };
  compareError.value = null;
}

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

/**
 * compare with the open model at other settings (settingVariants): its graph built by the module
 * as a settings change builds it, kept as B while A (the page) changes
 * @param {object} settings model-settings.js shape
 * @param {string} label the flags changed, for the title
 */
export function compareWithSettings(settings, label) {
  const m = currentModel();
  if (!m) return;
  try {
    const r = m.build(settings);
    let doc;
    try { doc = r.document.graph(); } finally { r.document.close(); }
    compareOther.value = { label: `this model at ${commandLine(settings)} (${label})`, doc, settings };
    compareError.value = null;
  } catch (e) {
    compareError.value = `${commandLine(settings)}: ${e.message}`; // the graph compared before stays
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
