// whatif-state.js: the What-if panel's state, in signals, and the only code that changes it.
//
// While the panel is open, every new graph (and every change of buffer type or budget) is
// analysed in the what-if worker: first the heuristics alone (fast: the numbers and plans
// appear at once), then with the exact search's budget. A newer request cancels an older
// one. A CSV problem, once imported, replaces the graph in the panel and on the timeline
// until it is closed; a CSV that fails leaves everything as it was and says why (its line).
// The timeline draws `timelineSource`: ggml's plan of the graph, or the chosen planner's.

import { signal, computed, batch, effect } from '@preact/signals';
import { graph, model, step, stepInfo, setNotice } from './state.js';
import { runWhatif, cancelWhatif } from './core/whatif-client.js';
import { graphWhatifSource, csvWhatifSource, ggmlSource, plannerOf } from './core/whatif-model.js';
import { csvCapacity, CSV_MAX_BYTES } from './core/whatif-csv.js';
import { stepState } from './core/steps.js';
import { formatBytesExact } from './core/format.js';

/** budgets the panel offers for the exact search, ms (0: heuristics only) */
export const BUDGETS = [0, 500, 2000, 5000, 20000, 60000];

// ---- signals ---------------------------------------------------------------------

/** the panel is open (analyses run only then) */
export const whatifOpen = signal(false);
/** the buffer type analysed (any buffer type sharing the allocator) */
export const whatifBuffer = signal(0);
/** the buffer type analysed, within the current graph's */
export const whatifBufferType = computed(() => Math.max(0, Math.min(whatifBuffer.value, (graph.value?.buffer_types.length ?? 1) - 1)));
/** the exact search's budget, ms */
export const whatifBudget = signal(2000);
/**
 * the analysis on screen: {kind: 'graph', graph, bufferType, budgetMs, result, final, ms} or
 * {kind: 'csv', problem, budgetMs, result, final, ms}; final: the exact search has had its budget;
 * ms: the call's time in the worker; seq: numbers the results shown
 */
export const whatif = signal(null);
/** while an analysis runs: {kind, phase: 'heuristics'|'exact', budgetMs, startedAt} */
export const whatifRunning = signal(null);
/** ms since the running analysis started, ticking while it runs */
export const whatifElapsed = signal(0);
/** why the last analysis of the graph failed, or null */
export const whatifError = signal(null);
/** the planner whose plan the timeline draws */
export const shownPlanner = signal('ggml');
/** the CSV problem shown instead of the graph: {name, text, rows, capacity: bigint|null, capacityFrom}, or null */
export const csvProblem = signal(null);
/** hovered and selected CSV row (-1: none); graph sources use state.js's hovered/selected */
export const rowHovered = signal(-1);
export const rowSelected = signal(-1);

/** what the timeline draws (see core/whatif-model.js) */
export const timelineSource = computed(() => {
  const m = model.value;
  const w = whatif.value;
  const planner = shownPlanner.value;
  if (whatifOpen.value && w) {
    if (csvProblem.value && w.kind === 'csv') return csvWhatifSource(w.result, planner, w.problem) ?? csvWhatifSource(w.result, 'ggml', w.problem);
    if (!csvProblem.value && w.kind === 'graph' && m && w.graph === graph.value && w.bufferType === whatifBufferType.value && planner !== 'ggml') {
      const src = graphWhatifSource(m, w.result, planner);
      if (src) return src;
    }
  }
  return m ? ggmlSource(m) : null;
});

/** the memory at the current step, for the source drawn (null when it has no steps) */
export const timelineStepInfo = computed(() => {
  const src = timelineSource.value;
  const s = step.value;
  if (!src || !src.stepped || s === null) return null;
  return src.kind === 'ggml' ? stepInfo.value : stepState(src, s);
});

// ---- running ---------------------------------------------------------------------

let runId = 0;
let seq = 0; // numbers every result put on screen (the page shows it, for tests)
let ticker = null;
let csvLoading = null; // the CSV problem whose import is running: the graph waits

function running(value) {
  whatifRunning.value = value;
  clearInterval(ticker);
  ticker = null;
  whatifElapsed.value = 0;
  if (value) {
    ticker = setInterval(() => { whatifElapsed.value = performance.now() - value.startedAt; }, 200);
  }
}

/**
 * Run a request in two phases (heuristics, then the budget); onResult(answer, final) after each,
 * onError(error, phase) when one fails. Resolves true when the first phase succeeded, false when
 * it failed or was overtaken by a newer run.
 */
async function analyse(kind, request, onResult, onError) {
  const id = ++runId;
  const phases = request.budgetMs > 0 ? [0, request.budgetMs] : [0];
  for (let k = 0; k < phases.length; k++) {
    const budgetMs = phases[k];
    running({ kind, phase: budgetMs ? 'exact' : 'heuristics', budgetMs, startedAt: performance.now() });
    let answer;
    try {
      answer = await runWhatif({ ...request, budgetMs });
    } catch (e) {
      if (id !== runId) return false;
      running(null);
      if (e.code !== 'cancelled') onError(e, k);
      return k > 0;
    }
    if (id !== runId) return false;
    onResult(answer, k === phases.length - 1);
  }
  running(null);
  return true;
}

/** analyse the current graph (the panel open, no CSV shown) */
function analyseGraph() {
  const g = graph.peek();
  if (!g || !whatifOpen.peek() || csvProblem.peek() || csvLoading) return;
  const bufferType = whatifBufferType.peek();
  const budgetMs = whatifBudget.peek();
  analyse('graph', { kind: 'graph', graph: g, bufferType, budgetMs }, (a, final) => {
    batch(() => {
      whatifError.value = null;
      whatif.value = { kind: 'graph', graph: g, bufferType, budgetMs, result: a.result, final, ms: a.ms, seq: ++seq };
    });
  }, (e, phase) => {
    batch(() => {
      whatifError.value = e.message;
      if (phase === 0 && whatif.peek()?.kind === 'graph') whatif.value = null; // the heuristics' numbers stay
    });
  });
}

// a new graph (or the panel opened, or a CSV closed): analyse it shortly
let graphTimer = null;
effect(() => {
  if (!whatifOpen.value || csvProblem.value) return;
  graph.value;
  whatifBuffer.value;
  whatifBudget.value;
  clearTimeout(graphTimer);
  graphTimer = setTimeout(analyseGraph, 200);
});

// ---- mutators ----------------------------------------------------------------------

/**
 * Open or close the panel; closing stops a running analysis and draws ggml's plan again.
 * @param {boolean} open
 */
export function setWhatifOpen(open) {
  if (!open) stopWhatif();
  whatifOpen.value = open;
}

/** @param {number} b a buffer type index of the graph */
export function setWhatifBuffer(b) { whatifBuffer.value = b; }

/**
 * Set the exact search's budget and analyse again (a CSV problem too).
 * @param {number} ms 0..600000
 */
export function setWhatifBudget(ms) {
  whatifBudget.value = ms;
  const p = csvProblem.peek();
  if (p && whatifOpen.peek()) runCsv(p, false);
}

/** analyse again with the current settings */
export function rerunWhatif() {
  const p = csvProblem.peek();
  if (p) runCsv(p, false);
  else analyseGraph();
}

/** stop the running analysis; what the heuristics found stays on screen */
export function stopWhatif() {
  runId++;
  cancelWhatif();
  running(null);
}

/**
 * Draw this planner's plan on the timeline ('ggml': the graph's own plan).
 * @param {string} name
 */
export function showPlanner(name) { shownPlanner.value = name; }

/** @param {number} i CSV row or -1 */
export function hoverRow(i) { if (rowHovered.value !== i) rowHovered.value = i; }
/** @param {number} i CSV row or -1 */
export function selectRow(i) { rowSelected.value = i; }

// analyse a CSV problem; fresh: a new import (shown only once its heuristics succeed)
async function runCsv(problem, fresh) {
  const before = whatif.peek();
  if (fresh) csvLoading = problem;
  const done = () => { if (csvLoading === problem) csvLoading = null; };
  let first = fresh;
  const ok = await analyse('csv', { kind: 'csv', text: problem.text, capacity: problem.capacity === null ? null : problem.capacity.toString(), budgetMs: whatifBudget.peek() },
    (a, final) => {
      done();
      batch(() => {
        csvProblem.value = problem;
        whatif.value = { kind: 'csv', problem, budgetMs: whatifBudget.peek(), result: a.result, final, ms: a.ms, seq: ++seq };
        if (first) {
          first = false;
          rowHovered.value = -1;
          rowSelected.value = -1;
          setNotice(`CSV problem ${problem.name}: ${a.result.items.length} rows${problem.capacity !== null ? `, capacity ${formatBytesExact(problem.capacity)} (from the ${problem.capacityFrom})` : ''}`);
        }
      });
    },
    (e) => {
      done();
      setNotice(`could not import ${problem.name}: ${e.message}`, 'error');
      // the import stopped what was running before it: run that again
      if (fresh && !(before && before.final)) rerunWhatif();
    });
  done(); // overtaken by a newer run
  return ok;
}

/**
 * Import a MiniMalloc CSV problem (id,lower,upper,size rows). The capacity is the typed one,
 * else the file name's (A.1048576.csv). On success the panel and the timeline show it; on
 * failure the banner says why (with the line) and nothing else changes.
 * @param {string} text
 * @param {{name?: string, capacity?: string}} [options] name: file name; capacity: what the user typed
 * @returns {Promise<boolean>} whether it was read (its heuristics ran)
 */
export async function importCsv(text, { name = 'pasted CSV', capacity = '' } = {}) {
  let cap;
  try {
    if (text.length > CSV_MAX_BYTES) throw new Error(`larger than ${CSV_MAX_BYTES} bytes`);
    try { cap = csvCapacity(capacity, name); } catch (e) { throw new Error(`capacity: ${e.message}`); }
  } catch (e) {
    setNotice(`could not import ${name}: ${e.message}`, 'error');
    return false;
  }
  whatifOpen.value = true;
  const problem = { name, text, capacity: cap.capacity, capacityFrom: cap.from };
  return runCsv(problem, true);
}

/** leave the CSV problem: the panel and the timeline show the graph again */
export function closeCsv() {
  stopWhatif();
  batch(() => {
    csvProblem.value = null;
    if (whatif.peek()?.kind === 'csv') whatif.value = null;
    rowHovered.value = -1;
    rowSelected.value = -1;
  });
}

/**
 * Whether a planner of the result on screen has a plan to draw.
 * @param {string} name
 * @returns {boolean}
 */
export function canShow(name) {
  const w = whatif.value;
  return name === 'ggml' || (w !== null && plannerOf(w.result, name) !== null);
}
