// state.js: the visualizer's state, in a few signals, and the only code that changes it.
//
// The graph text is the source of truth. Every change (typing, a preset,
// an import, the buffer panel, the graph view) ends in setText: the text
// is parsed, the document planned by the WASM module, and only when both
// succeed do `graph` and `plan` move on; otherwise the error is shown and
// the last good plan stays on screen. Components read these signals and
// call the named mutators below; they change nothing themselves.

import { signal, computed, batch } from '@preact/signals';
import { loadGalloc } from './core/galloc.js';
import { parseGraphText, graphToText, graphTextWriter, nameToken } from './core/graph-text.js';
import { createTextParser } from './core/text-parse-client.js';
import { normalizeGraph, removeBufferType as docRemoveBufferType, removeTensors as docRemoveTensors } from './core/graph-model.js';
import { buildModel } from './core/plan-model.js';
import { stepState } from './core/steps.js';
import { presetLesson } from './core/presets-info.js';
import { sharePayload, encodeShare, decodeShare, withBufferLines } from './core/share.js';
import { setBufferLine, setTensorBuffer, rewireSource, insertTensor, dependents } from './core/text-edits.js';

// ---- signals ---------------------------------------------------------------------

/** @type {import('@preact/signals').Signal<'loading'|'ready'|'failed'>} */
export const status = signal('loading');
/** the loaded module (null until ready) */
export const galloc = signal(null);
/** [{name, description, lesson}] */
export const presets = signal([]);
/** the preset the graph came from (null after an import) and its text, for short links */
export const presetName = signal(null);
export const presetText = signal(null);
/** the editor's text, and a counter bumped whenever it is replaced from outside the editor */
export const text = signal('');
export const textRevision = signal(0);
/** bumped when another graph is loaded (preset, import), not when the graph is edited: views start over */
export const graphSource = signal(0);
/** [{line, message}] from the parser, or from the planner mapped to a line */
export const textErrors = signal([]);
/** last good graph (normalized document), the text meta that produced it, and its plan */
export const graph = signal(null);
export const meta = signal(null);
export const plan = signal(null);
/** the graph on screen as the WASM module keeps it, read and planned once (a GallocDocument), or null */
export const planned = signal(null);
/** true while the editor's text of the graph on screen is still being written (a big import) */
export const textPending = signal(false);
/** true while a big text is parsed off the page (the worker): the plan on screen is the one before */
export const textParsing = signal(false);
/** {kind: 'error'|'info', message} shown in the banner, or null */
export const notice = signal(null);
/** time the last plan took, ms (planning + joining) */
export const planMs = signal(0);
/** selected and hovered tensor index, -1 for none */
export const selected = signal(-1);
export const hovered = signal(-1);
/** step-through: null shows every step; a number shows the memory at that step */
export const step = signal(null);
export const playing = signal(false);
/** draw views over their roots */
export const showViews = signal(true);
/** {tensor, slot} while the user picks a new source for a slot in a view, else null */
export const picking = signal(null);
/** a step range the timeline is asked to show ({first, last, seq}; seq tells two same requests apart), or null */
export const timelineRange = signal(null);

/** what a big graph's steps computed before showing it (showInSteps): its model and explanation */
let prepared = null;
/** the graph and plan joined (see core/plan-model.js) */
export const model = computed(() => {
  const g = graph.value;
  const p = plan.value;
  if (!g || !p) return null;
  return prepared && prepared.graph === g && prepared.plan === p ? prepared.model : buildModel(g, p);
});
/** memory at the current step, or null */
export const stepInfo = computed(() => (model.value && step.value !== null ? stepState(model.value, step.value) : null));
/** the explain analysis of the plan on screen (galloc-explain.h, through WASM): the peak, what is
 * live there, memory over time, each tensor's layer (`layer`, `n_layers`); null while there is none */
export const explanation = computed(() => {
  const d = planned.value;
  if (!d || !plan.value) return null;
  if (prepared && prepared.planned === d) return prepared.explanation;
  try { return d.explain(); } catch { return null; } // (a module that stopped: no explanation)
});

// ---- loading ---------------------------------------------------------------------

/**
 * Load the module and the first graph: from the URL fragment if it has one,
 * else the default preset.
 * @param {{wasmUrl?: string}} [options]
 * @returns {Promise<void>}
 */
export async function start(options = {}) {
  try {
    const g = await loadGalloc(options);
    batch(() => {
      galloc.value = g;
      presets.value = g.presets().map((p) => ({ ...p, lesson: presetLesson(p.name) }));
      status.value = 'ready';
    });
  } catch (e) {
    status.value = 'failed';
    notice.value = { kind: 'error', message: `could not load the allocator module: ${e.message}` };
    return;
  }
  // a model link, or the last session's work when there is no link (url-state.js)
  if (options.restore && options.restore()) return;
  let shared = null;
  let linkError = null;
  try { shared = decodeShare(typeof location === 'undefined' ? '' : location.hash); } catch (e) {
    linkError = e.message;
  }
  if (shared && shared.p) {
    if (loadPreset(shared.p, shared.b)) return;
    // a preset this version lacks: the error stays, and a graph is shown, the default
    linkError = `the link names ${notice.value?.message ?? `preset ${shared.p}`}`;
  } else if (shared && shared.t !== undefined) {
    presetName.value = null;
    presetText.value = null;
    replaceText(shared.t);
    return;
  }
  const fallback = defaultPreset();
  loadPreset(fallback);
  // after loadPreset, which clears the banner: the damaged link's error is what the user must see
  if (linkError) notice.value = { kind: 'error', message: `${linkError}; showing ${fallback} instead` };
}

/**
 * Put back a text kept from an earlier visit, under the preset it was edited from (its header
 * and lesson), or none. A preset this version lacks leaves the text alone, with no preset.
 * @param {string} t
 * @param {string|null} preset
 */
export function restoreEdited(t, preset) {
  let pt = null;
  let name = preset;
  if (name) {
    try { pt = graphToText(withModule((mod) => mod.preset(name))); } catch { name = null; }
  }
  batch(() => {
    presetName.value = name;
    presetText.value = pt;
    startOver();
  });
  replaceText(t);
}

function defaultPreset() {
  const names = presets.value.map((p) => p.name);
  return ['llama-tiny', 'test_reuse_and_free'].find((n) => names.includes(n)) ?? names[0];
}

// ---- the text and its plan -------------------------------------------------------

let parseTimer = null;

/**
 * The editor's text changed (typing): parse and plan after a short pause.
 * @param {string} value
 */
export function editText(value) {
  // an undo or redo that brings back a text the page put there whole brings back its header
  const snap = replaced.findLast((r) => r.text === value);
  if (snap && snap.preset !== presetName.value) {
    batch(() => { presetName.value = snap.preset; presetText.value = snap.presetText; });
  }
  cancelText();
  supersede(); // a parse of the text before is stale now
  text.value = value;
  clearTimeout(parseTimer);
  const delay = value.length > 200000 ? 450 : 150;
  parseTimer = setTimeout(() => applyText(value), delay);
}

/**
 * Replace the text from outside the editor, and plan it now.
 * @param {string} value
 * @param {{inThread?: boolean}} [options] inThread: parse it here whatever its size (a preset:
 *   its plan comes with its name and lesson, as before)
 * @returns {boolean|Promise<boolean>} whether it parsed and planned; a big text in the browser is
 *   parsed off the page (the worker), and then the answer comes later
 */
export function replaceText(value, { inThread = false } = {}) {
  clearTimeout(parseTimer);
  cancelText();
  batch(() => {
    text.value = value;
    textRevision.value++;
  });
  return applyText(value, inThread);
}

function applyText(value, inThread = false) {
  const seq = supersede();
  const parser = bigText(value) && !inThread ? textParser() : null;
  if (parser) return applyTextOffThread(parser, value, seq).then((how) => how === 'planned');
  const r = parseGraphText(value);
  if (r.errors) {
    textErrors.value = r.errors;
    return false;
  }
  return applyDocument(r.doc, r.meta);
}

/** the texts put in the editor whole (a preset, an imported text) and the text each replaced, with
 * the preset heading each (the last 20): undo and redo in the editor bring back the header too */
const replaced = [];
function rememberText() {
  replaced.push({ text: text.value, preset: presetName.value, presetText: presetText.value });
  if (replaced.length > 20) replaced.shift();
}

// ---- big texts: parsed in the worker, planned in steps -----------------------------

/** texts of this many characters and more (about 5,000 lines) are parsed in the worker, when there is one */
export const WORKER_TEXT_CHARS = 100000;
let workerTextChars = WORKER_TEXT_CHARS;
const bigText = (t) => t.length >= workerTextChars;

let parser;           // the worker's client (text-parse-client.js); null where there are no workers (Node)
let makeParser = () => (typeof Worker === 'function' ? createTextParser() : null);
let textSeq = 0;      // bumped by every new text or graph: the answer of an older parse is dropped

/**
 * Parse big texts with this parser (tests: one that parses in this thread, later), or none (null:
 * every text in this thread).
 * @param {{parse: Function, cancel: Function, busy: boolean}|null} p
 * @param {number} [minChars] what a big text is
 */
export function useTextParser(p, minChars = WORKER_TEXT_CHARS) {
  if (parser?.busy) parser.cancel();
  parser = p;
  makeParser = () => p;
  workerTextChars = minChars;
}

function textParser() {
  if (parser === undefined) parser = makeParser();
  return parser;
}

/** a newer text or graph replaces whatever is being parsed: cancel it; the new request's number */
function supersede() {
  if (parser && parser.busy) parser.cancel();
  if (textParsing.peek()) textParsing.value = false;
  return ++textSeq;
}

/** let the page handle its events and draw a frame; then whether request seq is still the newest */
function yieldToPage(seq) {
  return new Promise((ok) => setTimeout(ok, 0)).then(() => seq === textSeq);
}

/**
 * A big text: parsed in the worker, then read, planned and shown in separate tasks (the page draws
 * and answers between them). An older request's answer is dropped at each step.
 * @returns {Promise<'planned'|'parse'|'empty'|'plan'|'stale'>} what happened: planned, refused by
 *   the parser (textErrors), no tensors (nonEmpty), refused by the allocator (textErrors), superseded
 */
async function applyTextOffThread(p, value, seq, { nonEmpty = false } = {}) {
  textParsing.value = true;
  let r;
  try {
    r = await p.parse(value);
  } catch (e) {
    if (seq !== textSeq) return 'stale';
    textParsing.value = false;
    textErrors.value = [{ line: 1, message: e.message }];
    return 'parse';
  }
  if (seq !== textSeq) return 'stale';
  textParsing.value = false;
  if (r.errors) {
    textErrors.value = r.errors;
    return 'parse';
  }
  if (nonEmpty && r.meta.tensorLines.length === 0) return 'empty';
  try {
    return await showInSteps(seq, () => r.bytes, () => JSON.parse(r.json), r.meta);
  } catch (e) {
    if (seq !== textSeq) return 'stale';
    textErrors.value = [allocatorError(e, r.meta)];
    return 'plan';
  }
}

/**
 * Read, plan and show a big document in separate tasks, the page drawing and answering between
 * them: the module reads it, plans it, the graph is taken (graphOf), joined with its plan
 * (buildModel), explained, then shown. Throws what the module throws; an older request's
 * document is closed and dropped at each step.
 * @param {number} seq the request
 * @param {() => (string|Uint8Array)} input the document's JSON text or bytes
 * @param {(d: object) => object} graphOf the graph document of the read document
 * @param {object|null} m the text meta (null: none yet, an import)
 * @returns {Promise<'planned'|'stale'>}
 */
async function showInSteps(seq, input, graphOf, m) {
  let work = 0; // ms in this thread, for planMs
  const timed = (fn) => { const t0 = performance.now(); try { return fn(); } finally { work += performance.now() - t0; } };
  let d = null;
  const stale = () => { d?.close(); return 'stale'; };
  try {
    if (!(await yieldToPage(seq))) return stale();
    d = timed(() => withModule((mod) => mod.open(input())));
    if (!(await yieldToPage(seq))) return stale();
    const p = timed(() => d.plan());
    if (!(await yieldToPage(seq))) return stale();
    const doc = timed(() => normalizeGraph(graphOf(d)));
    if (!(await yieldToPage(seq))) return stale();
    const joined = timed(() => buildModel(doc, p));
    if (!(await yieldToPage(seq))) return stale();
    const why = timed(() => { try { return d.explain(); } catch { return null; } });
    if (!(await yieldToPage(seq))) return stale();
    prepared = { graph: doc, plan: p, model: joined, planned: d, explanation: why };
    timed(() => showPlanned(d, doc, m, p, performance.now()));
    planMs.value = work;
    return 'planned';
  } catch (e) {
    d?.close();
    throw e;
  }
}

/** an error of the module (reading or planning a document the text gave), at the line it names */
function allocatorError(e, m) {
  const at = /^(tensors|type_traits)\[(\d+)\]/.exec(e.message);
  const lines = at ? (at[1] === 'tensors' ? m.tensorLines : m.typeLines ?? []) : [];
  const line = at && lines[Number(at[2])] ? lines[Number(at[2])] : 1;
  return { line, message: `allocator: ${e.message}` };
}

/**
 * Run fn on the module; if the module itself stopped (a trap inside it, never
 * the input's fault), load a fresh one for the next call and say so.
 * @template T
 * @param {(g: object) => T} fn
 * @returns {T}
 */
function withModule(fn) {
  try {
    return fn(galloc.value);
  } catch (e) {
    if (e && e.code === 'module-aborted') {
      loadGalloc({ fresh: true }).then((g) => { galloc.value = g; }, () => {});
      e.message = `${e.message} (the module was reloaded; try again)`;
    }
    throw e;
  }
}

function applyDocument(doc, m, json = doc) {
  const g = galloc.value;
  if (!g) return false;
  const t0 = performance.now();
  let d;
  let p;
  try {
    d = withModule((mod) => mod.open(json));
    p = d.plan();
  } catch (e) {
    d?.close();
    textErrors.value = [allocatorError(e, m)];
    return false;
  }
  showPlanned(d, normalizeGraph(doc), m, p, t0);
  return true;
}

/** put a planned document on screen (its normalized graph, text meta and plan); the one before is closed */
function showPlanned(d, norm, m, p, t0) {
  const before = planned.peek();
  if (prepared && prepared.planned !== d) prepared = null;
  batch(() => {
    textErrors.value = [];
    planned.value = d;
    graph.value = norm;
    meta.value = m;
    plan.value = p;
    planMs.value = performance.now() - t0;
    if (selected.value >= norm.tensors.length) selected.value = -1;
    if (hovered.value >= norm.tensors.length) hovered.value = -1;
    if (step.value !== null && step.value >= (p.n_steps ?? norm.nodes.length)) step.value = null;
  });
  if (before && before !== d) before.close();
}

// ---- presets, import, sharing ----------------------------------------------------

/**
 * Show a graph document made elsewhere (a model's graph, model-state.js): read and planned once by
 * the module, like an import; its editor text is written after its plan is on screen (deferText).
 * @param {object} doc a "galloc-graph" document
 * @param {{newSource?: boolean, json?: string, document?: import('./core/galloc.js').GallocDocument}} [options]
 *   newSource: another model (the views start over), else the same model at other settings; json: the
 *   document's JSON text, if at hand; document: doc already read and planned in the module (GallocModel.build),
 *   which this takes over (closed when it fails, or when another graph replaces it)
 * @returns {boolean} whether it planned
 */
export function loadGeneratedGraph(doc, { newSource = false, json = doc, document = null } = {}) {
  if (!galloc.value) { document?.close(); return false; }
  const t0 = performance.now();
  let d = document;
  let p;
  try {
    d ??= withModule((mod) => mod.open(json));
    p = d.plan();
  } catch (e) {
    d?.close();
    textErrors.value = [{ line: 1, message: `allocator: ${e.message}` }];
    return false;
  }
  clearTimeout(parseTimer);
  supersede();
  batch(() => {
    presetName.value = null;
    presetText.value = null;
    if (newSource) startOver();
    showPlanned(d, normalizeGraph(doc), null, p, t0);
  });
  deferText(doc);
  return true;
}

/**
 * Where things are in a text (TextMeta), parsed only when first asked for: a generated graph's
 * text is written from its document, so showing it needs no parse; selecting a tensor in the
 * editor or editing the text does.
 * @param {string} t
 * @param {number[]|null} [tensorLines] each tensor's line, when the writer said
 */
function lazyMeta(t, tensorLines = null) {
  let m = null;
  const get = () => (m ??= parseGraphText(t).meta ?? { tensorLines: [], stmts: [], bufferLines: [] });
  return {
    get tensorLines() { return tensorLines ?? get().tensorLines; },
    get stmts() { return get().stmts; },
    get bufferLines() { return get().bufferLines; },
  };
}

/**
 * Another graph is loaded (a preset, an import, a model's graph): the views start over, with no
 * selection, no step, and no range of steps asked of the timeline (the range was the graph
 * before's; the timeline shows the new graph unzoomed, and the layer slider and the memory chart,
 * which read the range, must not say it still shows one). Inside the caller's batch.
 */
function startOver() {
  graphSource.value++;
  selected.value = -1;
  step.value = null;
  playing.value = false;
  timelineRange.value = null;
}

/**
 * Load a preset of the library (optionally with other @buffer lines, from a link).
 * @param {string} name
 * @param {string[]} [bufferLines]
 * @returns {boolean} false when there is no such preset (the banner says so)
 */
export function loadPreset(name, bufferLines) {
  const g = galloc.value;
  if (!g) return false;
  let t;
  try {
    t = graphToText(withModule((mod) => mod.preset(name)));
  } catch (e) {
    notice.value = { kind: 'error', message: `preset ${name}: ${e.message}` };
    return false;
  }
  rememberText();
  batch(() => {
    presetName.value = name;
    presetText.value = t;
    startOver();
    notice.value = null;
  });
  replaceText(bufferLines ? withBufferLines(t, bufferLines) : t, { inThread: true });
  rememberText();
  return true;
}

/**
 * Import a graph document (JSON: text, a file's bytes, or an object) or graph text. A document
 * is read by the C reader (the WASM module's normalize), the one checker: the UI refuses what
 * the CLI refuses, with the CLI's message and place (a file's bytes go in as they are, so a line
 * and column are the file's), and its numbers stay exact. On failure the current graph stays
 * and the banner says why.
 * @param {string|Uint8Array|object} input
 * @param {string} [source] where it came from, for messages
 * @returns {boolean|Promise<boolean>} whether it was imported (later, for a big graph text: parsed
 *   in the worker)
 */
export function importGraph(input, source = 'the input') {
  let t = null;
  let d = null;
  let doc = null;
  let p = null;
  const t0 = performance.now();
  try {
    const kind = importKind(input);
    if (kind === 'empty') {
      // an empty box or file holds no graph: importing it would replace the graph on screen with
      // nothing (to start from an empty graph, clear the editor, which Ctrl+Z undoes)
      throw new Error('line 1, column 1: the input is empty, nothing to import (the graph on screen stays)');
    }
    if (kind === 'text') {
      t = typeof input === 'string' ? input : new TextDecoder().decode(input);
      if (bigText(t) && textParser()) return importBigText(t, source);
      const r = parseGraphText(t);
      if (r.errors) throw new Error(`line ${r.errors[0].line}: ${r.errors[0].message}`);
      if (r.doc.tensors.length === 0) throw new Error('the graph text defines no tensors, nothing to import (the graph on screen stays)');
    } else {
      if (inSteps(input)) return importInSteps(input, source);
      // read and planned once, as the CLI reads and plans it; its text is written afterwards
      d = withModule((mod) => mod.open(input));
      doc = d.graph();
      p = d.plan();
    }
  } catch (e) {
    d?.close();
    notice.value = { kind: 'error', message: `could not import ${source}: ${e.message}` };
    return false;
  }
  rememberText();
  if (t !== null) {
    const keep = { text: text.value, errors: textErrors.value };
    if (!replaceText(t)) {
      refuseImport(keep, source, textErrors.value[0]?.message ?? 'it could not be planned');
      return false;
    }
  } else {
    clearTimeout(parseTimer);
    supersede();
    showPlanned(d, normalizeGraph(doc), null, p, t0);
    deferText(doc);
  }
  importedNotice(d?.warning ?? '', source);
  if (t !== null) rememberText(); // the imported text, under no preset
  return true;
}

/** after an import: a new graph (the views start over), and the notice saying what came in */
function importedNotice(warning, source) {
  batch(() => {
    presetName.value = null;
    presetText.value = null;
    startOver();
    const imported = `imported ${source}: ${graph.value.tensors.length} tensors, ${graph.value.nodes.length} nodes`;
    notice.value = warning ? { kind: 'warning', message: `${imported}; warning: ${warning}` } : { kind: 'info', message: imported };
  });
}

/** documents of this many bytes and more are read, planned and shown in steps (showInSteps), in a page */
export const STEPS_INPUT_BYTES = 1 << 20;
let stepsMinBytes = typeof window !== 'undefined' ? STEPS_INPUT_BYTES : Infinity; // (no page: never)
/** tests: show documents of minBytes and more in steps (null: never) */
export function useSteps(minBytes) { stepsMinBytes = minBytes ?? Infinity; }
const inSteps = (input) => (input instanceof Uint8Array || typeof input === 'string') && input.length >= stepsMinBytes;

/**
 * importGraph of a big document: read, planned and shown in steps (showInSteps); its text written
 * after it (deferText). The graph on screen stays until then, and when the document is refused.
 * @returns {Promise<boolean>}
 */
async function importInSteps(input, source) {
  clearTimeout(parseTimer);
  const seq = supersede();
  let warning = '';
  let how;
  try {
    how = await showInSteps(seq, () => input, (d) => { warning = d.warning; return d.graph(); }, null);
  } catch (e) {
    if (seq === textSeq) notice.value = { kind: 'error', message: `could not import ${source}: ${e.message}` };
    return false;
  }
  if (how === 'stale') return false;
  deferText(graph.peek());
  importedNotice(warning, source);
  return true;
}

/**
 * importGraph of a big graph text: parsed in the worker, planned in steps (applyTextOffThread);
 * the editor shows the new text meanwhile, and gets the one before back when it is refused.
 * @returns {Promise<boolean>}
 */
async function importBigText(t, source) {
  const keep = { text: text.value, errors: textErrors.value };
  clearTimeout(parseTimer);
  cancelText();
  const seq = supersede();
  batch(() => {
    text.value = t;
    textRevision.value++;
  });
  const how = await applyTextOffThread(textParser(), t, seq, { nonEmpty: true });
  if (how === 'planned') {
    importedNotice('', source);
    return true;
  }
  if (how === 'stale') return false;
  const first = textErrors.value[0];
  const why = how === 'empty' ? 'the graph text defines no tensors, nothing to import (the graph on screen stays)'
    : how === 'parse' ? `line ${first.line}: ${first.message}` : first?.message ?? 'it could not be planned';
  refuseImport(keep, source, why);
  return false;
}

/** an import that could not be planned: the text on screen before it comes back, the notice says why */
function refuseImport(keep, source, why) {
  batch(() => {
    text.value = keep.text;
    textRevision.value++;
    textErrors.value = keep.errors;
    notice.value = { kind: 'error', message: `could not import ${source}: ${why}` };
  });
}

// ---- the editor's text of an imported document, written after its plan is on screen ----------

let pendingText = null; // {writer, timer}: the text still to be written (graphTextWriter)
/** ms of writing per task: the page draws and answers between slices */
const TEXT_SLICE_MS = 10;

/**
 * Write the editor's text of a document shown without one (an import) once the page has drawn its
 * plan: writing the text of 300,000 tensors takes longer than planning them, so it is written a
 * slice at a time, in tasks of TEXT_SLICE_MS, the page drawing and answering between them. Until
 * then the editor is read-only (textPending); anything that needs the text writes the rest first
 * (flushText).
 * @param {object} doc
 */
function deferText(doc) {
  if (pendingText) clearTimeout(pendingText.timer);
  const job = { writer: graphTextWriter(doc), timer: 0 };
  // after the next frame: the plan is drawn before the text is written (no frames under Node: soon)
  const later = () => { job.timer = setTimeout(() => writeSlice(job), 0); };
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(later);
  else job.timer = setTimeout(() => writeSlice(job), 20);
  pendingText = job;
  textPending.value = true;
}

// the next task soon: a message to this page (timers chained from timers wait 4 ms each, a third
// of a slice); a timer where there is no page (Node)
const taskChannel = typeof window !== 'undefined' && typeof MessageChannel === 'function' ? new MessageChannel() : null;
const taskQueue = [];
if (taskChannel) taskChannel.port1.onmessage = () => taskQueue.shift()?.();
function nextTask(fn) {
  if (!taskChannel) { setTimeout(fn, 0); return; }
  taskQueue.push(fn);
  taskChannel.port2.postMessage(0);
}

function writeSlice(job, ms = TEXT_SLICE_MS) {
  if (pendingText !== job) return;
  clearTimeout(job.timer);
  let r;
  try {
    r = job.writer.write(ms);
  } catch (e) {
    pendingText = null;
    batch(() => {
      textPending.value = false;
      notice.value = { kind: 'error', message: `the graph is planned, but its text cannot be written: ${e.message}` };
    });
    return;
  }
  if (!r) {
    nextTask(() => writeSlice(job));
    return;
  }
  pendingText = null;
  batch(() => {
    text.value = r.text;
    textRevision.value++;
    meta.value = lazyMeta(r.text, r.tensorLines);
    textPending.value = false;
  });
}

function cancelText() {
  if (!pendingText) return;
  clearTimeout(pendingText.timer);
  pendingText = null;
  textPending.value = false;
}

/** write the editor's text now if it is still pending (before an edit or a link reads it) */
export function flushText() {
  if (pendingText) writeSlice(pendingText, Infinity);
}

/**
 * What an import holds: a JSON document (its first character '{' or '['; an object), graph
 * text, or nothing (only white space).
 * @param {string|Uint8Array|object} input
 * @returns {'json'|'text'|'empty'}
 */
function importKind(input) {
  if (typeof input !== 'string' && !(input instanceof Uint8Array)) return 'json';
  const n = input.length;
  let i = 0;
  const at = (k) => (typeof input === 'string' ? input.charCodeAt(k) : input[k]);
  while (i < n && (at(i) === 0x20 || at(i) === 0x09 || at(i) === 0x0a || at(i) === 0x0d)) i++;
  if (i === n) return 'empty';
  return at(i) === 0x7b || at(i) === 0x5b ? 'json' : 'text';
}

/**
 * The link that reopens the current graph and limits.
 * @returns {string} a URL fragment without '#'
 */
export function shareFragment() {
  flushText();
  return encodeShare(sharePayload({ text: text.value, preset: presetName.value, presetText: presetText.value }));
}

/** fn(answer) now, or when the answer of a big text comes (replaceText) */
function whenAnswered(answer, fn) {
  if (!(answer instanceof Promise)) { fn(answer); return answer; }
  return answer.then((ok) => { fn(ok); return ok; });
}

/** documents of this many tensors and more are written as text in slices (graphTextWriter) when edited, in a page */
const SLICED_EDIT_TENSORS = 5000;

/**
 * Replace the text with a document's (an edit made on the document: a buffer type renamed or
 * removed, tensors removed). A big document's text is written in slices, then planned as any big
 * text; a newer text or graph meanwhile drops it.
 * @param {object} doc
 * @returns {boolean|Promise<boolean>}
 */
function replaceWithDocument(doc) {
  if (stepsMinBytes === Infinity || doc.tensors.length < Math.min(SLICED_EDIT_TENSORS, stepsMinBytes)) return replaceText(graphToText(doc));
  const seq = supersede();
  const writer = graphTextWriter(doc);
  return new Promise((done) => {
    const slice = () => {
      if (seq !== textSeq) { done(false); return; }
      let r;
      try {
        r = writer.write(TEXT_SLICE_MS);
      } catch (e) {
        setNotice(e.message, 'error');
        done(false);
        return;
      }
      if (r) done(replaceText(r.text));
      else nextTask(slice);
    };
    nextTask(slice);
  });
}

/** @param {string|null} message */
export function setNotice(message, kind = 'info') {
  notice.value = message ? { kind, message } : null;
}

// ---- buffer types ----------------------------------------------------------------

function editBuffer(b, change) {
  flushText();
  const d = graph.value;
  if (!d || !meta.value) return false;
  const types = d.buffer_types.map((t) => ({ ...t }));
  if (b >= types.length) types.push({ name: `buft${b}`, alignment: 32, max_size: null });
  Object.assign(types[b], change);
  return replaceText(setBufferLine(text.value, meta.value, b, types));
}

/**
 * Set a buffer type's max size (bytes, BigInt/number/string; null: none).
 * @param {number} b
 * @param {bigint|number|string|null} bytes
 */
export function setMaxSize(b, bytes) {
  const v = bytes === null ? null : BigInt(bytes);
  if (v !== null && v <= 0n) { setNotice('the max size must be more than 0 bytes', 'error'); return false; }
  return editBuffer(b, { max_size: v === null ? null : v.toString() });
}

/** @param {number} b @param {number} alignment a power of two */
export function setAlignment(b, alignment) {
  return editBuffer(b, { alignment });
}

/** @param {number} b @param {string} name */
export function renameBuffer(b, name) {
  if (!name.trim()) return false;
  const d = graph.value;
  const types = d.buffer_types.map((t, k) => (k === b ? { ...t, name: name.trim() } : t));
  return replaceWithDocument({ ...d, buffer_types: types });
}

/** add a buffer type (host-like: alignment 32, no max size) */
export function addBufferType() {
  flushText();
  const d = graph.value;
  if (!d) return false;
  const names = new Set(d.buffer_types.map((t) => t.name));
  let k = d.buffer_types.length;
  while (names.has(`buft${k}`)) k++;
  const types = [...d.buffer_types, { name: `buft${k}`, alignment: 32, max_size: null }];
  return replaceText(setBufferLine(text.value, meta.value, d.buffer_types.length, types));
}

/** remove buffer type b; what was assigned to it moves to the previous type */
export function removeBufferType(b) {
  try {
    return replaceWithDocument(docRemoveBufferType(graph.value, b));
  } catch (e) {
    setNotice(e.message, 'error');
    return false;
  }
}

function bufToken(b) {
  const types = graph.value.buffer_types;
  const name = types[b].name;
  return /^[A-Za-z_][A-Za-z0-9_.\-]*$/.test(name) && types.findIndex((t) => t.name === name) === b && name !== '_' && name !== 'none' ? name : String(b);
}

/**
 * Assign a tensor's node (or leaf) to a buffer type.
 * @param {number} i
 * @param {number} b
 */
export function assignBuffer(i, b) {
  flushText();
  if (!graph.value || !meta.value) return false;
  return replaceText(setTensorBuffer(text.value, meta.value, i, b === 0 ? null : bufToken(b)));
}

// ---- graph edits -----------------------------------------------------------------

function refTo(i, at) {
  const d = graph.value;
  const name = d.tensors[i].name;
  for (let k = at - 1; k > i; k--) if (d.tensors[k].name === name) return `$${i}`;
  return i < at ? nameToken(name) : `$${i}`;
}

/**
 * Point source slot `slot` of tensor i at tensor j.
 * @param {number} i
 * @param {number} slot
 * @param {number} j
 */
export function rewire(i, slot, j) {
  flushText();
  if (i === j) { setNotice('a tensor cannot be its own source', 'error'); return false; }
  const d = graph.value;
  if (d && dependents(d, i).includes(j)) {
    setNotice(`${d.tensors[j].name} depends on ${d.tensors[i].name}: it cannot also be its source (that would be a cycle)`, 'error');
    return false;
  }
  try {
    return replaceText(rewireSource(text.value, meta.value, i, slot, refTo(j, i)));
  } catch (e) {
    setNotice(e.message, 'error');
    return false;
  }
}

/**
 * Point source slot `slot` of tensor i at the tensor a reference names:
 * $N, or a name (the latest tensor of that name above i).
 * @param {number} i
 * @param {number} slot
 * @param {string} ref
 */
export function rewireByRef(i, slot, ref) {
  const d = graph.value;
  let j = -1;
  if (/^\$\d+$/.test(ref)) j = Number(ref.slice(1));
  else for (let k = i - 1; k >= 0; k--) if (d.tensors[k].name === ref) { j = k; break; }
  if (j < 0 || j >= d.tensors.length) { setNotice(`no tensor ${ref} above ${d.tensors[i].name}`, 'error'); return false; }
  return rewire(i, slot, j);
}

/**
 * Add a tensor made by `call` from the given sources, right after the
 * latest of them (or after the selected tensor), and select it.
 * @param {string} fn call name (add, mul_mat, scale, input, ...)
 * @param {number[]} sources tensor indices
 * @param {string} [extra] more arguments, e.g. "f32, 8" for input
 */
export function addTensor(fn, sources, extra = '') {
  flushText();
  const d = graph.value;
  if (!d) return false;
  const after = sources.length ? Math.max(...sources) : d.tensors.length - 1;
  const names = new Set(d.tensors.map((t) => t.name));
  let k = d.tensors.length;
  while (names.has(`t${k}`)) k++;
  const name = `t${k}`;
  const args = [...sources.map((s) => refTo(s, after + 1)), ...(extra ? [extra] : [])].join(', ');
  const { text: t, index } = insertTensor(text.value, meta.value, after, `${name} = ${fn}(${args})`);
  return whenAnswered(replaceText(t), (ok) => { if (ok) selected.value = index; });
}

/**
 * Remove a tensor; with `cascade`, also everything computed from it.
 * @param {number} i
 * @param {boolean} [cascade]
 */
export function removeTensor(i, cascade = false) {
  const d = graph.value;
  const deps = dependents(d, i);
  if (deps.length > 1 && !cascade) {
    setNotice(`${d.tensors[i].name} is used by ${deps.length - 1} other tensor(s); remove them too, or rewire them first`, 'error');
    return false;
  }
  return whenAnswered(replaceWithDocument(docRemoveTensors(d, deps)), (ok) => { if (ok) selected.value = -1; });
}

/**
 * Start picking a new source for slot `slot` of tensor i: the next tensor
 * clicked in the graph or the timeline becomes that source.
 * @param {number} i
 * @param {number} slot
 */
export function startPick(i, slot) { picking.value = { tensor: i, slot }; }
/** stop picking */
export function cancelPick() { picking.value = null; }
/**
 * The tensor picked as the new source.
 * @param {number} j
 */
export function pickSource(j) {
  const p = picking.value;
  picking.value = null;
  if (p) rewire(p.tensor, p.slot, j);
}

// ---- selection and steps ---------------------------------------------------------

/** @param {number} i tensor index or -1 */
export function select(i) { selected.value = i; }
/** @param {number} i tensor index or -1 */
export function hover(i) { if (hovered.value !== i) hovered.value = i; }
/** @param {boolean} v */
export function setShowViews(v) { showViews.value = v; }

/**
 * Zoom the timeline to the steps first..last (it keeps them until the user zooms again).
 * @param {number} first
 * @param {number} last
 */
export function showSteps(first, last) {
  timelineRange.value = { first: Math.min(first, last), last: Math.max(first, last), seq: (timelineRange.peek()?.seq ?? 0) + 1 };
}

/**
 * Show the memory at a step (null: all steps).
 * @param {number|null} s
 */
export function setStep(s) {
  const m = model.value;
  if (s === null || !m) { step.value = null; return; }
  step.value = Math.max(-1, Math.min(m.steps - 1, s));
}

/** @param {number} d steps forward (negative: back) */
export function stepBy(d) {
  const m = model.value;
  if (!m) return;
  const cur = step.value ?? -1;
  setStep(Math.max(-1, Math.min(m.steps - 1, cur + d)));
}

let playTimer = null;

/** play the steps from the current one, about 12 steps a second (faster for long graphs) */
export function play() {
  const m = model.value;
  if (!m) return;
  if (step.value === null || step.value >= m.steps - 1) step.value = -1;
  playing.value = true;
  clearInterval(playTimer);
  const stride = Math.max(1, Math.round(m.steps / 600));
  playTimer = setInterval(() => {
    const mm = model.value;
    if (!mm || step.value === null || step.value >= mm.steps - 1) { pause(); return; }
    setStep(step.value + stride);
  }, 80);
}

/** stop playing */
export function pause() {
  playing.value = false;
  clearInterval(playTimer);
}
