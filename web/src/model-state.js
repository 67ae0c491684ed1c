// model-state.js: the model page's state: which model (a dropped GGUF header or a card), its
// settings, what llama.cpp would log for them, and the sweep. The graph itself goes through
// state.js (loadGeneratedGraph: read and planned once by the module, its editor text written after
// the plan is on screen), so the plan, the timeline and every panel follow each change.

import { signal, computed, batch } from '@preact/signals';
import { galloc, graph, graphSource, loadGeneratedGraph, setNotice } from './state.js';
import { readGgufHeader } from './core/gguf-file.js';
import { START_SETTINGS, withSetting, sweepPoints } from './core/model-settings.js';
import { createSweepRunner } from './core/sweep-client.js';

/** [{name, description}] of the built-in cards */
export const cards = signal([]);
/**
 * the open model: {kind: 'gguf', fileName, fileSize, summary, header, bytesRead, readMs}
 * or {kind: 'card', name, description}; with architecture and name; null when none
 */
export const modelSource = signal(null);
/** the settings (model-settings.js START_SETTINGS shape) */
export const settings = signal(START_SETTINGS);
/** what llama.cpp logs for the open model at these settings (ModelSizes), or null */
export const sizes = signal(null);
/** the last error of the model page ('' when none) */
export const modelError = signal('');
/** how long the last change took, ms: {build, plan, total} (llama.cpp's sizes and the graph document,
 * in the module from one build of the graph; planning and showing it), then, once the frame that
 * draws it has been painted, shown (from the change to that frame, the breakdown and the drawing
 * included) and at (performance.now() then); or null */
export const buildTimes = signal(null);
/** the sweep: {status: 'idle'|'running'|'done'|'failed', done, total, points: [{settings, sizes|error}], ubatches,
 * axis ('n_ctx' or 'n_ubatch': what the points run along)} */
export const sweep = signal({ status: 'idle', done: 0, total: 0, points: [], ubatches: [] });

/** the model's layers (blk.N of its graph: N + 1 at most), 0 until its first graph is built */
export const modelLayers = signal(0);
/** the graph the model last put on screen, the settings it was built from and the graphSource it
 * was shown under ({settings, graph, source}), or null */
export const planSettings = signal(null);
/** the open model is what the page shows: no preset or import loaded since (edits do not count) */
export const modelShown = computed(() => Boolean(modelSource.value && !modelSource.value.unsupported
  && (!planSettings.value || planSettings.value.source === graphSource.value)));

let model = null; // the GallocModel of modelSource
let source = null; // what opened it ({gguf} or {card}), for the sweep worker
const runner = createSweepRunner();

/** the open GallocModel (device-state.js asks it for the memory breakdown), or null */
export function currentModel() { return model; }
/** what opened it ({gguf} or {card}), or null */
export function currentSource() { return source; }

/** blk.N tensors of a graph document: the layer count (largest N + 1) */
function layersOf(doc) {
  let n = 0;
  for (const t of doc.tensors ?? []) {
    const m = /^blk\.(\d+)\./.exec(t.name ?? '');
    if (m) n = Math.max(n, Number(m[1]) + 1);
  }
  return n;
}

/** fill the card list once the module is loaded */
export function loadCards() {
  if (!galloc.value || cards.value.length) return;
  try {
    cards.value = galloc.value.modelCards();
  } catch (e) {
    modelError.value = `model cards: ${e.message}`;
  }
}

function replaceModel(next, nextSource, info) {
  if (model) model.close();
  model = next;
  source = nextSource;
  runner.cancel();
  batch(() => {
    modelSource.value = { ...info, architecture: next.architecture, name: next.name };
    planSettings.value = null;
    sweep.value = { status: 'idle', done: 0, total: 0, points: [], ubatches: [] };
    modelError.value = '';
  });
  rebuild(true);
}

/**
 * Open a GGUF file: only its header is read (slices of the File), in the page.
 * @param {File|Blob & {name?: string}} file
 * @returns {Promise<boolean>}
 */
export async function openGgufFile(file) {
  const g = galloc.value;
  if (!g) return false;
  const t0 = performance.now();
  let r;
  try {
    r = await readGgufHeader(g, file);
  } catch (e) {
    batch(() => {
      modelError.value = `${file.name ?? 'the file'}: ${e.message}`;
      setNotice(`could not read ${file.name ?? 'the file'}: ${e.message}`, 'error');
    });
    return false;
  }
  const readMs = performance.now() - t0;
  let m;
  try {
    m = g.openModel({ gguf: r.header });
  } catch (e) {
    batch(() => {
      modelSource.value = { kind: 'gguf', fileName: file.name ?? '', fileSize: file.size, summary: r.summary, bytesRead: r.bytesRead, readMs, architecture: r.summary.architecture, name: r.summary.name, unsupported: true };
      modelError.value = `${file.name ?? 'the file'}: ${e.message}`;
    });
    return false;
  }
  replaceModel(m, { gguf: r.header }, { kind: 'gguf', fileName: file.name ?? '', fileSize: file.size, summary: r.summary, bytesRead: r.bytesRead, readMs });
  return true;
}

/**
 * Open a built-in card.
 * @param {string} name
 * @returns {boolean}
 */
export function openCard(name) {
  const g = galloc.value;
  if (!g) return false;
  let m;
  try {
    m = g.openModel({ card: name });
  } catch (e) {
    modelError.value = `card ${name}: ${e.message}`;
    return false;
  }
  loadCards(); // a link opens its card before the model panel has listed the cards
  const description = cards.value.find((c) => c.name === name)?.description ?? '';
  replaceModel(m, { card: name }, { kind: 'card', cardName: name, description });
  return true;
}

/**
 * Set every setting at once (a link's), before a model is opened or with one open.
 * @param {typeof START_SETTINGS} next
 */
export function setSettings(next) {
  settings.value = { ...START_SETTINGS, ...next };
  rebuild(false);
}

/**
 * Change one setting; the graph, the plan and the sizes follow.
 * @param {string} key
 * @param {string|number} value
 */
export function setSetting(key, value) {
  const t0 = performance.now(); // before the settings change: the breakdown (device-state.js) follows it at once
  settings.value = withSetting(settings.value, key, value);
  rebuild(false, t0);
}

/** at the frame that shows what was just rendered (its animation frame callback, before its paint) */
const atNextFrame = (fn) => (typeof requestAnimationFrame === 'undefined' ? setTimeout(fn, 0) : requestAnimationFrame(() => fn()));

// the graph and the sizes of the open model at the current settings
function rebuild(newSource, started = performance.now()) {
  if (!model) return;
  try {
    const s = settings.value;
    const t0 = performance.now();
    const r = model.build(s); // the graph read and planned in the module, kept there (a GallocDocument)
    let doc;
    try { doc = r.document.graph(); } catch (e) { r.document.close(); throw e; }
    const t1 = performance.now();
    batch(() => {
      sizes.value = r.sizes;
      modelError.value = '';
      if (newSource) modelLayers.value = layersOf(doc);
      if (loadGeneratedGraph(doc, { newSource, document: r.document })) planSettings.value = { settings: s, graph: graph.value, source: graphSource.value };
    });
    const t2 = performance.now();
    const times = { build: t1 - t0, plan: t2 - t1, total: t2 - t0 };
    buildTimes.value = times;
    atNextFrame(() => {
      const at = performance.now();
      if (buildTimes.peek() === times) buildTimes.value = { ...times, shown: at - started, at };
    });
  } catch (e) {
    batch(() => {
      sizes.value = null;
      modelError.value = e.message;
      if (newSource) modelLayers.value = 0;
    });
  }
}

/**
 * Sweep the context length (at the micro-batches given) or the micro-batch (at the settings'
 * context), for flash attention off and on, in a worker; the plot fills in when it ends.
 * @param {{axis?: 'n_ctx'|'n_ubatch', ubatches?: number[], maxCtx?: number}} [options]
 */
export async function runSweep({ axis = 'n_ctx', ubatches = [settings.value.n_ubatch], maxCtx = 0 } = {}) {
  if (!source) return;
  const points = sweepPoints(settings.value, { axis, ubatches, maxCtx });
  sweep.value = { status: 'running', done: 0, total: points.length, points: [], ubatches, axis };
  try {
    const results = await runner.run(source, points, (done, total) => {
      sweep.value = { ...sweep.value, done, total };
    });
    sweep.value = { status: 'done', done: points.length, total: points.length, ubatches, axis,
      points: points.map((p, i) => ({ settings: p, sizes: results[i].error ? null : results[i], error: results[i].error ?? '' })) };
  } catch (e) {
    if (e.code === 'cancelled') return;
    sweep.value = { status: 'failed', done: 0, total: 0, points: [], ubatches, error: e.message };
  }
}

export function cancelSweep() {
  runner.cancel();
  sweep.value = { status: 'idle', done: 0, total: 0, points: [], ubatches: [] };
}
