// galloc.js: the JS API of the galloc WebAssembly module (build/wasm/galloc.{mjs,wasm}).
//
// Loads the module once, in the browser (fetching galloc.wasm, or options.wasmUrl) or in
// Node (reading it from disk), and wraps the C exports of c/wasm/galloc-wasm.c: graph
// documents go in as UTF-8 JSON, plan documents come out parsed. Library errors are thrown
// as Error with the library's one-line message; the instance keeps working after them.

import { decodeGraph, decodePlan } from './galloc-binary.js';

/**
 * @typedef {object} GallocPreset
 * @property {string} name         the preset's name ("test_view_inplace", "realloc_a", ...)
 * @property {string} description  one sentence: what the preset shows
 */

/**
 * @typedef {object} GallocLoadOptions
 * @property {string|URL} [wasmUrl]         where galloc.wasm is (default: build/wasm/galloc.wasm,
 *   resolved against this file, which bundlers such as Vite turn into an asset URL)
 * @property {ArrayBuffer|Uint8Array} [wasmBinary] the .wasm bytes themselves (nothing is fetched)
 * @property {(options: object) => Promise<object>} [factory] the emscripten factory (the default
 *   export of galloc.mjs), when the caller has imported it itself
 * @property {boolean} [fresh] load a new, uncached instance instead of the shared one
 */

/**
 * An Error thrown by the library. `message` is the library's one-line message (for a document
 * error it starts with the JSON path of the culprit: "tensors[3].src[0]: ...", for a CSV its
 * line: "line 12: ..."), `code` names the kind of failure: the library's status name
 * (galloc_status_name in C, read from the module), or 'module-aborted'. `status` is the
 * library's status number (enum galloc_status), -1 for errors raised by this file itself.
 * @typedef {Error & { code: GallocErrorCode, status: number }} GallocError
 */

/**
 * @typedef {'invalid-input'|'limit'|'out-of-memory'|'bad-argument'|'not-found'|'io-error'|'declined'|'module-aborted'} GallocErrorCode
 */

/**
 * A GGUF file's header as galloc_gguf_write_summary writes it (c/include/galloc-gguf.h). Byte
 * counts past 2^53 stay decimal strings.
 * @typedef {object} GgufSummary
 * @property {'galloc-gguf-summary'} format
 * @property {number} version            2 or 3
 * @property {string|null} architecture  general.architecture
 * @property {string|null} name          general.name
 * @property {number} n_kv
 * @property {number} n_tensors
 * @property {number} alignment          bytes
 * @property {number} header_size        bytes of magic, counts, KV pairs and tensor infos
 * @property {number} data_offset        where the tensor data starts
 * @property {number|string} data_size   bytes of tensor data the infos claim
 * @property {number|string} file_size   data_offset + data_size: the length llama.cpp expects
 * @property {string} llama_refusal      '' when llama.cpp's gguf.cpp reads the file, else why not
 * @property {Array<{type: string, count: number, bytes: number|string}>} tensor_types
 * @property {Array<{key: string, type: string, offset: number, value: any}>} kv  arrays as
 *   {elem_type, n, items: the first maxItems}
 * @property {Array<{name: string, type: string, ne: number[], nbytes: number|string, offset: number|string}>} tensors
 */

/**
 * llama.cpp's context settings, by their flags (galloc_model_settings in galloc-model.h).
 * @typedef {object} ModelSettings
 * @property {number} n_ctx      -c: context length in tokens (0: the model's training context)
 * @property {number} n_batch    -b
 * @property {number} n_ubatch   -ub: tokens per graph
 * @property {number} flash_attn -fa: 0 off, 1 on
 * @property {string} type_k     -ctk: "f16", "q8_0", ...
 * @property {string} type_v     -ctv
 * @property {number} n_seq      -np
 * @property {'prompt'|'decode'} graph which graph llama.cpp reserves
 */

/**
 * What llama.cpp logs after creating the context (galloc_model_sizes).
 * @typedef {object} ModelSizes
 * @property {Array<{name: string, compute: number}>} buffer_types  compute buffer bytes per buffer type
 * @property {number} n_ctx       the context after llama.cpp's rounding
 * @property {number} n_ctx_seq   cells per sequence stream
 * @property {number} n_ctx_swa   cells of the sliding-window cache (0: none)
 * @property {number} n_tokens    tokens in the graph
 * @property {number} n_nodes
 * @property {number} n_leafs
 * @property {number} kv_bytes    K and V caches
 */

/**
 * One planner's plan in a what-if result. Byte counts past 2^53 stay decimal strings.
 * @typedef {object} WhatifPlanner
 * @property {'ggml'|'greedy-by-size'|'greedy-by-breadth'|'exact'} name
 * @property {boolean} valid            has a plan
 * @property {boolean} checked          the plan passes the library's checker (no overlap, chunk rules)
 * @property {number|string} total      bytes: the sum of chunk_sizes
 * @property {number|string} above_bound        bytes above the result's lower_bound
 * @property {number|null} above_bound_percent  that, in % of lower_bound (null: the bound is 0)
 * @property {Array<number|string>} chunk_sizes  bytes, per chunk
 * @property {number} time_us           wall time the planner took, microseconds
 * @property {boolean} proved_optimal   exact: no valid plan is smaller
 * @property {number|string} bound      exact: no valid plan is smaller than this (bytes)
 * @property {number} nodes             exact: search nodes visited
 * @property {string} note              why a planner stopped early or was skipped, '' otherwise
 * @property {number[]} chunks          per item: its chunk
 * @property {Array<number|string>} offsets  per item: bytes from its chunk's start
 */

/**
 * A what-if result ("galloc-whatif", written by galloc_whatif_write_json): one allocator of a
 * planned graph, or a CSV problem, as items with lifetimes, the lower bound, and every planner's plan.
 * @typedef {object} WhatifResult
 * @property {'galloc-whatif'} format
 * @property {number|null} buffer_type  graph: the allocator's (first) buffer type; CSV: null
 * @property {number} alignment         bytes
 * @property {number|string|null} max_size  bytes a chunk may hold, null: no limit
 * @property {number|string|null} capacity  CSV: the total the plan should fit in, null: none
 * @property {number|string} lower_bound    bytes: the most the items hold live at one step
 * @property {number|string} peak_live      graph: the plan's peak_live; CSV: lower_bound
 * @property {number} n_shrinking       in-place chains whose members need fewer bytes than the largest
 * @property {string} best              name of the smallest checked plan (ggml's on ties)
 * @property {Array<{id: number, tensors: number, size: number|string, first: number, last: number}>} items
 *   graph: id = the chain's first tensor; CSV: id = the data row (0-based); first/last inclusive steps
 * @property {WhatifPlanner[]} planners ggml, greedy-by-size, greedy-by-breadth, exact
 * @property {number[]} [tensor_item]   graph only: per tensor the item holding its memory, -1: none
 */

/**
 * A tensor in an explanation. Byte counts past 2^53 stay decimal strings.
 * @typedef {object} ExplainTensor
 * @property {number} tensor   index in the document
 * @property {string} name
 * @property {string} op       as ggml_op_desc names it: the unary op or GLU ("SILU", "SWIGLU") or the op
 * @property {string} type     "f32", ...
 * @property {number[]} ne     4 dimensions
 * @property {number|string} bytes  rounded bytes it holds
 * @property {number} percent  bytes as a percentage of the buffer's size
 * @property {number} layer    the layer its name carries, -1 none
 */

/**
 * One buffer type of an explanation.
 * @typedef {object} ExplainBuffer
 * @property {number} buffer_type
 * @property {string} name
 * @property {number|null} shared_with  earlier buffer type whose allocator it uses (numbers there), or null
 * @property {number|string} size       bytes: the allocator's size
 * @property {number|string} peak_live  bytes: the most live at one step
 * @property {number} peak_step         first step reaching it (-1: before the first node)
 * @property {number|string} overhead   size - peak_live
 * @property {number} overhead_percent  of peak_live
 * @property {Array<{chunk: number, size: number|string, raiser: (ExplainTensor & {offset: number|string, step: number})|null}>} chunks
 * @property {ExplainTensor[]} live     at the peak, largest first
 * @property {Array<{name: string, count: number, bytes: number|string, percent: number, tensor: number, first_layer: number, last_layer: number}>} groups
 *   the live set folded by layer ("kq-*"), largest first
 * @property {Array<number|string>} live_bytes  per step: index 0 before the first node, i + 1 step i
 * @property {Array<number|string>} high_water  per step, as live_bytes
 */

/**
 * @typedef {object} ExplainResult
 * @property {'galloc-explain'} format
 * @property {number} n_steps
 * @property {number} n_tensors
 * @property {number} n_layers       1 + the largest layer a name carries, 0 none
 * @property {ExplainBuffer[]} buffers
 * @property {number[]} layer        per tensor, -1 none
 * @property {number[]} hold_buffer  per tensor: the allocator holding its memory, -1 none
 * @property {number[]} hold_first   per tensor: first step it holds memory (> hold_last: never)
 * @property {number[]} hold_last
 * @property {Array<number|string>} hold_bytes
 */

/**
 * @typedef {object} ExplainDiff
 * @property {'galloc-explain-diff'} format
 * @property {boolean} folded
 * @property {number|string} total_a
 * @property {number|string} total_b
 * @property {number|string} total_diff  total_b - total_a
 * @property {Array<{name: string, buffer_a: number, buffer_b: number, size_a: number|string, size_b: number|string,
 *   size_diff: number|string, peak_a: number|string, peak_b: number|string, peak_diff: number|string, peak_step_a: number,
 *   peak_step_b: number, overhead_diff: number|string, rows: Array<{name: string, bytes_a: number|string,
 *   bytes_b: number|string, diff: number|string, count_a: number, count_b: number, tensor_a: number, tensor_b: number}>,
 *   above_a: ExplainAbove[], above_b: ExplainAbove[]}>} buffers  above_a: A's tensors placed above B's size of their
 *   chunk (most bytes above first), above_b: B's above A's
 */

/**
 * @typedef {{tensor: number, name: string, chunk: number, step: number, offset: number|string, bytes: number|string,
 *   above: number|string}} ExplainAbove  one tensor's place and the bytes of it past the other side's chunk size
 */


/** the longest exact search a call may ask for, ms (the module's argument is a uint32) */
export const MAX_BUDGET_MS = 600000;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

/**
 * the shared instances, one per factory (the key: the factory given, or DEFAULT_FACTORY for
 * galloc.mjs): a module loaded with one factory is never handed out for another
 * @type {Map<any, Promise<Galloc>>}
 */
const shared = new Map();
const DEFAULT_FACTORY = Symbol('galloc.mjs');

/**
 * Load the module (once per factory: later calls with the same `factory`, or none, return the
 * same instance, whatever their other options, unless `fresh` is set; a call with another
 * factory loads that factory's module). Rejects when the .wasm cannot be found or compiled.
 * @param {GallocLoadOptions} [options]
 * @returns {Promise<Galloc>}
 */
export async function loadGalloc(options = {}) {
  if (options.fresh) return instantiate(options);
  const key = options.factory ?? DEFAULT_FACTORY;
  let loading = shared.get(key);
  if (loading !== undefined) {
    // a module that stopped is never handed out again, even to a call made right after it stopped
    // (before call()'s clean-up of the shared map has run)
    const g = await loading.catch(() => null);
    if (g === null || g.dead === null) return loading;
    if (shared.get(key) === loading) shared.delete(key);
    loading = shared.get(key); // another call may have loaded a fresh one meanwhile
  }
  if (loading === undefined) {
    loading = instantiate(options).catch((e) => {
      if (shared.get(key) === loading) shared.delete(key); // let a later call try again
      throw e;
    });
    shared.set(key, loading);
  }
  return loading;
}

/** true under Node (and Vitest), where fetch of file: URLs does not work */
function isNode() {
  return typeof process === 'object' && typeof process.versions?.node === 'string' && typeof window === 'undefined';
}

/**
 * @param {GallocLoadOptions} options
 * @returns {Promise<Galloc>}
 */
async function instantiate(options) {
  const factory = options.factory ?? (await import('../../../build/wasm/galloc.mjs')).default;
  const wasmUrl = options.wasmUrl ?? new URL('../../../build/wasm/galloc.wasm', import.meta.url);
  const moduleOptions = {
    locateFile: (path) => (path.endsWith('.wasm') ? String(wasmUrl) : path),
    print: () => {},
    printErr: () => {},
  };
  if (options.wasmBinary) {
    moduleOptions.wasmBinary = options.wasmBinary;
  } else if (isNode()) {
    const url = new URL(String(wasmUrl), import.meta.url);
    if (url.protocol === 'file:') {
      const fsName = 'node:fs/promises'; // kept out of reach of browser bundlers
      const { readFile } = await import(/* @vite-ignore */ fsName);
      moduleOptions.wasmBinary = await readFile(url);
    } else {
      moduleOptions.wasmBinary = new Uint8Array(await (await fetch(url)).arrayBuffer());
    }
  }
  const module = await factory(moduleOptions);
  return new Galloc(module);
}

/**
 * JSON.stringify that writes BigInt as decimal strings (the document format's way for numbers
 * past 2^53)
 * @param {object} value
 * @returns {string}
 */
function toJSON(value) {
  try {
    // without a replacer first: a replacer called for every value triples the time of a big document
    return JSON.stringify(value);
  } catch {
    // a BigInt (or a cyclic object: then the second try says so)
  }
  try {
    return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v));
  } catch (e) {
    // a cyclic object, or a getter or toJSON that throws: a GallocError like every other failure
    throw gallocError(`document: cannot be written as JSON (${e instanceof Error ? e.message : String(e)})`, 'bad-argument', -1);
  }
}

/**
 * Text as UTF-8 bytes for the module, also when it holds a lone UTF-16 surrogate (pasted or
 * typed, which no UTF-8 can hold): TextEncoder would turn it into U+FFFD silently; here it becomes
 * the three bytes a file with that code unit would hold (0xED 0xA0..0xBF ...), which the C reader
 * refuses as the CLI refuses such a file, at its line and column.
 * @param {string} text
 * @returns {Uint8Array}
 */
export function textBytes(text) {
  if (typeof text.isWellFormed !== 'function' || text.isWellFormed()) return encoder.encode(text);
  const parts = [];
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    const pair = c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    if (pair) { i++; continue; }
    parts.push(encoder.encode(text.slice(from, i)), new Uint8Array([0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]));
    from = i + 1;
  }
  parts.push(encoder.encode(text.slice(from)));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

/**
 * One loaded module. Every method is synchronous; methods that allocate in the module free
 * what they allocated on every path, so heapUsed() is the same before and after each call.
 */
export class Galloc {
  /** @param {any} module the emscripten module */
  constructor(module) {
    /**
     * @private the emscripten module (not enumerable: test runners and devtools would walk its
     * heap views)
     * @type {any}
     */
    this.m = undefined;
    Object.defineProperty(this, 'm', { value: module, enumerable: false });
    /** @private @type {string|null} why the module stopped, once it has */
    this.dead = null;
    /** @private @type {string[]} the library's status names by number (galloc_wasm_status_name) */
    this.statusNames = [];
    for (let i = 0; ; i++) {
      const name = this.cString(module._galloc_js_status_name(i));
      if (name === 'unknown') break;
      this.statusNames.push(name);
    }
  }

  /**
   * Plan a graph document (spec/graph-format.md).
   * Numbers in the plan are plain numbers up to 2^53; larger ones (sizes near SIZE_MAX) stay
   * decimal strings, exactly as the document carries them (use BigInt(x) to compute with them).
   * @param {object|string} graph a graph document, as an object (BigInt values are written as
   *   decimal strings) or as JSON text
   * @returns {object} the "galloc-plan" document
   * @throws {GallocError} when the document is invalid or cannot be planned
   */
  plan(graph) {
    return JSON.parse(this.planText(graph));
  }

  /**
   * Like plan(), but the plan document as the library wrote it (JSON text, one tensor a line),
   * byte for byte what the native CLI prints.
   * @param {object|string} graph
   * @returns {string}
   * @throws {GallocError}
   */
  planText(graph) {
    return this.withDocument(graph, (ptr, len) => this.m._galloc_js_plan(ptr, len));
  }

  /**
   * Read and plan a graph document once and keep it in the module: its graph, plan and explanation
   * are then written from what was kept, without reading or planning it again (what the UI does
   * with every graph it shows). Close it when done: the module keeps at most 16 open.
   * @param {object|string|Uint8Array} graph a document, its JSON text or a file's bytes
   * @returns {GallocDocument}
   * @throws {GallocError} as plan() does
   */
  open(graph) {
    const bytes = graph instanceof Uint8Array ? graph : textBytes(typeof graph === 'string' ? graph : toJSON(graph));
    const handle = this.withBytesNumber(bytes, (ptr, len) => this.m._galloc_js_doc_open(ptr, len));
    return new GallocDocument(this, handle);
  }

  /**
   * Read and check a graph document and return it in full: nodes and leafs built when it gave
   * "outputs", defaults (buffer types, strides) filled in.
   * @param {object|string|Uint8Array} graph a document, its JSON text or a file's bytes
   * @returns {object} the "galloc-graph" document (numbers past 2^53 as decimal strings: exact)
   * @throws {GallocError} when the document is invalid
   */
  normalize(graph) {
    return JSON.parse(this.withDocument(graph, (ptr, len) => this.m._galloc_js_graph(ptr, len)));
  }

  /**
   * Time the planner on a graph document inside the module (for benchmarks): the document is
   * read once, then planned `runs` times on a fresh plan each time. Only the benchmark module
   * (build/wasm-bench/galloc.mjs, bench/bench.mk) has the timing code; the UI's module refuses.
   * @param {object|string} graph
   * @param {number} runs 1..100000
   * @returns {{nodes: number, tensors: number, runs: number, median_ms: number, min_ms: number, heap_bytes: number}}
   * @throws {GallocError}
   */
  timePlan(graph, runs) {
    const n = checkInteger(runs, 1, 100000, 'runs'); // `runs | 0` made 2**32 + 2 two runs
    if (typeof this.m._galloc_js_time_plan !== 'function') {
      throw gallocError('timePlan: this module has no timing code (the benchmark module build/wasm-bench/galloc.mjs has)', 'bad-argument', -1);
    }
    return JSON.parse(this.withDocument(graph, (ptr, len) => this.m._galloc_js_time_plan(ptr, len, n)));
  }

  /**
   * How far ggml's plan of one buffer type is from the best possible, and what would do better:
   * plans the graph, turns the buffer type's allocator into items (in-place chains merged),
   * and runs ggml's plan, two greedy planners and an exact search (galloc-whatif.h). Blocks for
   * up to budgetMs (run it in a worker, see whatif-client.js, to keep a page responsive).
   * @param {object|string} graph a graph document (object or JSON text)
   * @param {{bufferType?: number, budgetMs?: number}} [options] bufferType: any buffer type sharing
   *   the allocator (default 0); budgetMs: time for the exact search, 0..MAX_BUDGET_MS (default 2000;
   *   0: the heuristics only)
   * @returns {WhatifResult}
   * @throws {GallocError} 'invalid-input' for the graph, 'bad-argument' for a buffer type or
   *   budget out of range, 'limit' when the problem is past the analysis' limits
   */
  whatif(graph, { bufferType = 0, budgetMs = 2000 } = {}) {
    const bt = checkInteger(bufferType, 0, 0x7fffffff, 'bufferType');
    const budget = checkInteger(budgetMs, 0, MAX_BUDGET_MS, 'budgetMs');
    return JSON.parse(this.withDocument(graph, (ptr, len) => this.m._galloc_js_whatif(ptr, len, bt, budget)));
  }

  /**
   * The same analysis for a MiniMalloc CSV problem: rows `id,lower,upper,size` (header optional),
   * each a buffer of size bytes live over [lower, upper); alignment 1, no max size.
   * @param {string} text the CSV text
   * @param {{capacity?: number|bigint|string|null, budgetMs?: number}} [options] capacity: the total
   *   the plan should fit in, bytes, exact to 2^64 (null/0: none; the exact search first tries to
   *   fit it); budgetMs as for whatif()
   * @returns {WhatifResult}
   * @throws {GallocError} 'invalid-input' (or 'limit') with a message naming the line ("line 12: upper 5 <= lower 7"),
   *   'bad-argument' for a capacity or budget out of range
   */
  whatifCsv(text, { capacity = null, budgetMs = 2000 } = {}) {
    const cap = checkCapacity(capacity);
    const budget = checkInteger(budgetMs, 0, MAX_BUDGET_MS, 'budgetMs');
    const lo = Number(cap & 0xffffffffn);
    const hi = Number(cap >> 32n);
    return JSON.parse(this.withInput(String(text), (ptr, len) => this.m._galloc_js_whatif_csv(ptr, len, lo, hi, budget)));
  }

  /**
   * Read a GGUF file's header (metadata and tensor infos, never tensor data) from a prefix of it.
   * When the prefix ends too early the answer is `{needBytes, message}`: read at least needBytes
   * bytes from the start of the file and call again (readGgufHeader in gguf-file.js does).
   * @param {Uint8Array} bytes the first bytes of the file
   * @param {{fileSize?: number, maxItems?: number}} [options] fileSize: the file's length in bytes
   *   (what would run past it is an error instead of a request for more); maxItems: array elements
   *   kept per array (default 8)
   * @returns {GgufSummary | {needBytes: number, message: string}}
   * @throws {GallocError} 'invalid-input' with a message naming the byte offset and the key or tensor
   *   ("offset 4: GGUF version 1 is no longer supported"), 'bad-argument' for bad options
   */
  ggufSummary(bytes, { fileSize = -1, maxItems = 8 } = {}) {
    if (!(bytes instanceof Uint8Array)) throw gallocError('bytes: not a Uint8Array', 'bad-argument', -1);
    const size = fileSize === -1 ? -1 : checkInteger(fileSize, 0, Number.MAX_SAFE_INTEGER, 'fileSize');
    const items = checkInteger(maxItems, 0, 0x7fffffff, 'maxItems');
    const r = JSON.parse(this.withBytes(bytes, (ptr, len) => this.m._galloc_js_gguf_summary(ptr, len, size, items)));
    return r.need_bytes !== undefined ? { needBytes: Number(r.need_bytes), message: r.message } : r;
  }

  /**
   * The built-in model cards (well-known models' hyperparameters; no file needed).
   * @returns {Array<{name: string, description: string}>}
   */
  modelCards() {
    this.alive();
    const n = this.call(() => this.m._galloc_js_model_card_count());
    const list = [];
    for (let i = 0; i < n; i++) {
      list.push({
        name: this.cString(this.call(() => this.m._galloc_js_model_card_name(i))),
        description: this.cString(this.call(() => this.m._galloc_js_model_card_description(i))),
      });
    }
    return list;
  }

  /**
   * llama.cpp's default settings (galloc_model_settings_default).
   * @returns {ModelSettings}
   */
  modelDefaults() {
    return JSON.parse(this.withInput('', () => this.m._galloc_js_model_defaults()));
  }

  /**
   * Open a model, from a GGUF header (the file's first summary.header_size bytes or more) or a
   * card. Close it when done (it holds a little memory in the module).
   * @param {{gguf: Uint8Array} | {card: string}} source
   * @returns {GallocModel}
   * @throws {GallocError} 'invalid-input' for a bad header ("offset N: ...") or a model the builders
   *   refuse (an architecture they do not know, a missing hyperparameter), 'limit' for more tensors
   *   than a model has, 'not-found' for a card
   */
  openModel(source) {
    let handle;
    if (source && source.gguf instanceof Uint8Array) {
      handle = this.withBytesNumber(source.gguf, (ptr, len) => this.m._galloc_js_model_open_gguf(ptr, len));
    } else if (source && typeof source.card === 'string') {
      handle = this.withInputNumber(source.card, (ptr) => this.m._galloc_js_model_open_card(ptr));
    } else {
      throw gallocError('openModel: give {gguf: Uint8Array} or {card: name}', 'bad-argument', -1);
    }
    let info;
    try {
      info = JSON.parse(this.withInput('', () => this.m._galloc_js_model_info(handle)));
    } catch (e) {
      // out of memory writing the info: the model opened must not stay behind
      if (this.dead === null) this.m._galloc_js_model_close(handle);
      throw e;
    }
    return new GallocModel(this, handle, info);
  }

  /**
   * Why the compute buffer is this big (galloc-explain.h): plans the graph and returns, per
   * buffer type, the allocator's size, the peak of live bytes and its step, the tensors live
   * at the peak largest first (name, op, type, ne, bytes, percent of the buffer, layer), the
   * same folded by layer (groups), per chunk the tensor whose placement last raised its size,
   * and per step the live bytes and the high-water mark (index 0: before the first node, i + 1:
   * step i); per tensor its layer and the steps it holds memory (hold_buffer/first/last/bytes).
   * @param {object|string} graph a graph document (object or JSON text)
   * @returns {ExplainResult}
   * @throws {GallocError} 'invalid-input' (the message names the place)
   */
  explain(graph) {
    return JSON.parse(this.withDocument(graph, (ptr, len) => this.m._galloc_js_explain(ptr, len)));
  }

  /**
   * Two graphs explained and compared, B minus A: per buffer type (matched by name) both sizes,
   * the difference, how much of it is the peak and how much packing, and the names (or, with
   * fold, layer-folded names) whose bytes at the peaks differ, largest difference first.
   * @param {object|string} a
   * @param {object|string} b
   * @param {{fold?: boolean}} [options] fold: group names by layer ("kq-*"), default true
   * @returns {{diff: ExplainDiff, a: ExplainResult, b: ExplainResult}}
   * @throws {GallocError} the failing document's message starts with "A: " or "B: "
   */
  explainCompare(a, b, { fold = true } = {}) {
    const bytesB = textBytes(typeof b === 'string' ? b : toJSON(b));
    return JSON.parse(this.withDocument(a, (pa, la) => {
      const pb = this.m._galloc_js_alloc(bytesB.length + 1) >>> 0;
      if (pb === 0) return 0; // out of memory: the status is set
      try {
        const heap = this.m.HEAPU8; // after the allocation, which may have grown the heap
        heap.set(bytesB, pb);
        heap[pb + bytesB.length] = 0;
        return this.m._galloc_js_explain_compare(pa, la, pb, bytesB.length, fold ? 1 : 0);
      } finally {
        this.m._galloc_js_free(pb);
      }
    }));
  }

  /**
   * ggml's plan of a graph (A) against the same graph with one allocator packed as an offline
   * planner packed it (B, e.g. the What-if panel's exact or greedy plan): the explainCompare
   * result, computed in C (galloc-whatif.h galloc_whatif_apply, then galloc-explain.h). The
   * peaks are the same; the difference is packing, and diff.buffers[].above_a / above_b list
   * each side's tensors placed above the other's size of their chunk.
   * @param {object|string} graph
   * @param {number} bufferType the allocator analysed (as whatif() was given it)
   * @param {{chunks: number[], offsets: (number|bigint|string)[]}} placement per what-if item (a
   *   planner of the whatif() result of the same graph and buffer type)
   * @param {{fold?: boolean}} [options]
   * @returns {{diff: ExplainDiff, a: ExplainResult, b: ExplainResult}}
   * @throws {GallocError} 'invalid-input' when the placement is no plan of the problem (overlap,
   *   misaligned, past a chunk's limit), 'bad-argument' for a wrong count or buffer type
   */
  explainOffline(graph, bufferType, placement, { fold = true } = {}) {
    const n = placement && Array.isArray(placement.chunks) ? placement.chunks.length : -1;
    if (n < 0 || !Array.isArray(placement.offsets) || placement.offsets.length !== n) {
      throw gallocError('explainOffline: give {chunks, offsets} of one length', 'bad-argument', -1);
    }
    const words = new Uint32Array(3 * n);
    for (let i = 0; i < n; i++) {
      const off = BigInt(placement.offsets[i]);
      const c = Number(placement.chunks[i]);
      words[3 * i] = Number.isInteger(c) && c >= 0 && c <= 0x7fffffff ? c : 0xffffffff; // the checker refuses anything else
      words[3 * i + 1] = Number(BigInt.asUintN(32, off));
      words[3 * i + 2] = Number(BigInt.asUintN(32, off >> 32n));
    }
    return JSON.parse(this.withDocument(graph, (pa, la) => {
      const pw = this.m._galloc_js_alloc(words.byteLength + 4) >>> 0;
      if (pw === 0) return 0; // out of memory: the status is set
      try {
        new Uint8Array(this.m.HEAPU8.buffer, pw, words.byteLength).set(new Uint8Array(words.buffer));
        return this.m._galloc_js_explain_offline(pa, la, bufferType | 0, pw, n, fold ? 1 : 0);
      } finally {
        this.m._galloc_js_free(pw);
      }
    }));
  }

  /**
   * The built-in example graphs.
   * @returns {GallocPreset[]}
   */
  presets() {
    this.alive();
    const n = this.call(() => this.m._galloc_js_preset_count());
    const list = [];
    for (let i = 0; i < n; i++) {
      list.push({
        name: this.cString(this.call(() => this.m._galloc_js_preset_name(i))),
        description: this.cString(this.call(() => this.m._galloc_js_preset_description(i))),
      });
    }
    return list;
  }

  /**
   * A preset's graph document.
   * @param {string} name one of presets()' names
   * @returns {object} the "galloc-graph" document
   * @throws {GallocError} with code 'not-found' for an unknown name
   */
  preset(name) {
    return JSON.parse(this.presetText(name));
  }

  /**
   * A preset's graph document as JSON text.
   * @param {string} name
   * @returns {string}
   * @throws {GallocError}
   */
  presetText(name) {
    if (typeof name !== 'string' || name.includes('\0')) {
      // the C side reads a NUL-terminated name: "llama-tiny\0x" would be llama-tiny
      throw gallocError(`preset: ${JSON.stringify(String(name))} is not a preset name`, 'bad-argument', -1);
    }
    return this.withInput(name, (ptr) => this.m._galloc_js_preset_document(ptr));
  }

  /**
   * ggml's tables as the C library has them (the one source of truth; web/src/core/ggml-tables.js
   * is generated from this by `make tables`).
   * @returns {{ggml: string, types: Record<string, [number, number]>, ops: string[], inplace_ops: string[],
   *   unary_ops: string[], glu_ops: string[], flags: string[]}}
   */
  tables() {
    this.alive();
    const r = this.call(() => this.m._galloc_js_tables()) >>> 0;
    if (r === 0) throw this.lastError();
    return JSON.parse(this.takeString(r));
  }

  /**
   * What the last document read by plan(), normalize() and the like warns about: the ops, unary
   * ops, GLU ops and types it uses that ggml's tables (0.21.0) lack (kept by name; such ops are
   * planned as ops that may not run in place). "" when nothing.
   * @returns {string}
   */
  lastWarning() {
    this.alive();
    return this.cString(this.call(() => this.m._galloc_js_last_warning()));
  }

  /**
   * The library's version.
   * @returns {string} e.g. "0.1.0"
   */
  version() {
    this.alive();
    return this.cString(this.call(() => this.m._galloc_js_version()));
  }

  /**
   * Bytes the module's malloc has handed out and not taken back (not the heap's length, which
   * only grows). For leak tests: the same before and after any number of calls.
   * @returns {number}
   */
  heapUsed() {
    this.alive();
    return this.call(() => this.m._galloc_js_heap_used());
  }

  // ---- private -------------------------------------------------------------------------

  /** @private throw when the module has stopped */
  alive() {
    if (this.dead !== null) {
      throw gallocError(`the galloc module stopped earlier (${this.dead}); load a fresh one`, 'module-aborted', -1);
    }
  }

  /**
   * @private run an export; a trap or abort inside it (a broken invariant: never the input's
   * fault) marks the instance dead and becomes a GallocError
   * @template T
   * @param {() => T} fn
   * @returns {T}
   */
  call(fn) {
    try {
      return fn();
    } catch (e) {
      this.dead = e?.message ?? String(e);
      for (const [key, loading] of shared) {
        loading.then((g) => g === this && shared.get(key) === loading && shared.delete(key), () => {});
      }
      throw gallocError(`the galloc module stopped: ${this.dead}`, 'module-aborted', -1);
    }
  }

  /** @private the error the last failed export left */
  lastError() {
    const status = this.m._galloc_js_last_status();
    const message = this.cString(this.m._galloc_js_last_error()) || 'unknown error';
    return gallocError(message, this.statusNames[status] ?? 'bad-argument', status);
  }

  /**
   * @private a graph document (object, text, or the bytes of a file: handed over as they are, so
   * the reader's verdict and its line and column are those of the file) in the module, handed to fn
   * @param {object|string|Uint8Array} graph
   * @param {(ptr: number, len: number) => number} fn returns a string the caller owns, or 0
   * @returns {string}
   */
  withDocument(graph, fn) {
    if (graph instanceof Uint8Array) return this.withTerminated(graph, fn);
    const text = typeof graph === 'string' ? graph : toJSON(graph);
    return this.withInput(text, fn);
  }

  /**
   * @private copy text into a module buffer (NUL-terminated), call fn(ptr, byteLength), take
   * the string it returns; the buffer and the result are freed on every path
   * @param {string} text
   * @param {(ptr: number, len: number) => number} fn
   * @returns {string}
   */
  withInput(text, fn) {
    return this.withTerminated(textBytes(text), fn);
  }

  /**
   * @private like withInput, for bytes (copied, NUL-terminated)
   * @param {Uint8Array} bytes
   * @param {(ptr: number, len: number) => number} fn
   * @returns {string}
   */
  withTerminated(bytes, fn) {
    this.alive();
    const ptr = this.call(() => this.m._galloc_js_alloc(bytes.length + 1)) >>> 0;
    if (ptr === 0) throw this.lastError();
    try {
      const heap = this.m.HEAPU8;
      heap.set(bytes, ptr);
      heap[ptr + bytes.length] = 0;
      const result = this.call(() => fn(ptr, bytes.length)) >>> 0;
      if (result === 0) throw this.lastError();
      return this.takeString(result);
    } finally {
      if (this.dead === null) this.m._galloc_js_free(ptr);
    }
  }

  /**
   * @private copy bytes into a module buffer, call fn(ptr, byteLength), take the string it
   * returns; the buffer and the result are freed on every path
   * @param {Uint8Array} bytes
   * @param {(ptr: number, len: number) => number} fn
   * @returns {string}
   */
  withBytes(bytes, fn) {
    this.alive();
    const ptr = this.call(() => this.m._galloc_js_alloc(bytes.length)) >>> 0;
    if (ptr === 0) throw this.lastError();
    try {
      this.m.HEAPU8.set(bytes, ptr);
      const result = this.call(() => fn(ptr, bytes.length)) >>> 0;
      if (result === 0) throw this.lastError();
      return this.takeString(result);
    } finally {
      if (this.dead === null) this.m._galloc_js_free(ptr);
    }
  }

  /**
   * @private like withBytes, for an export that returns a positive number (0: failure)
   * @param {Uint8Array} bytes
   * @param {(ptr: number, len: number) => number} fn
   * @returns {number}
   */
  withBytesNumber(bytes, fn) {
    this.alive();
    const ptr = this.call(() => this.m._galloc_js_alloc(bytes.length)) >>> 0;
    if (ptr === 0) throw this.lastError();
    try {
      this.m.HEAPU8.set(bytes, ptr);
      const result = this.call(() => fn(ptr, bytes.length));
      if (result <= 0) throw this.lastError();
      return result;
    } finally {
      if (this.dead === null) this.m._galloc_js_free(ptr);
    }
  }

  /**
   * @private like withInput, for an export that returns a positive number (0: failure)
   * @param {string} text
   * @param {(ptr: number, len: number) => number} fn
   * @returns {number}
   */
  withInputNumber(text, fn) {
    return this.withBytesNumber(encoder.encode(`${text}\0`), (ptr, len) => fn(ptr, len - 1));
  }

  /**
   * @private decode and free a string returned by an export (length from result_length)
   * @param {number} ptr
   * @returns {string}
   */
  takeString(ptr) {
    try {
      const len = this.m._galloc_js_result_length() >>> 0;
      return decoder.decode(this.m.HEAPU8.subarray(ptr, ptr + len));
    } finally {
      this.m._galloc_js_free(ptr);
    }
  }

  /**
   * @private a NUL-terminated string the module owns
   * @param {number} ptr
   * @returns {string}
   */
  cString(ptr) {
    ptr >>>= 0;
    if (ptr === 0) throw this.lastError();
    const heap = this.m.HEAPU8;
    const end = heap.indexOf(0, ptr);
    return decoder.decode(heap.subarray(ptr, end < 0 ? heap.length : end));
  }
}

/**
 * A graph document read and planned in the module (Galloc.open). Numbers as plan() gives them.
 */
export class GallocDocument {
  /**
   * @param {Galloc} galloc
   * @param {number} handle
   */
  constructor(galloc, handle) {
    /** @private */ this.g = galloc;
    /** @private */ this.handle = handle;
    /** @type {string} what the document warns about (Galloc.lastWarning when it was read) */
    this.warning = galloc.cString(galloc.call(() => galloc.m._galloc_js_doc_warning(handle)));
  }

  /**
   * The document in full, as Galloc.normalize gives it (the same object JSON.parse makes of
   * graphText(), crossing from the module as compact binary: galloc-binary.js).
   * @returns {object}
   */
  graph() { return this.binary((h) => this.g.m._galloc_js_doc_graph_binary(h), decodeGraph); }

  /** @returns {string} the document's JSON text, as the CLI writes it (`galloc graph`): for files */
  graphText() { return this.text((h) => this.g.m._galloc_js_doc_graph(h)); }

  /**
   * Its "galloc-plan" document, as Galloc.plan gives it (the same object JSON.parse makes of
   * planText(), crossing as compact binary).
   * @returns {object}
   */
  plan() { return this.binary((h) => this.g.m._galloc_js_doc_plan_binary(h), decodePlan); }

  /** @returns {string} the plan document's text, as Galloc.planText gives it (the CLI's bytes): for files */
  planText() { return this.text((h) => this.g.m._galloc_js_doc_plan(h)); }

  /**
   * The sizes llama.cpp logs for the settings this document was built with (GallocModel.build).
   * @returns {ModelSizes}
   * @throws {GallocError} 'bad-argument' for a document not built from a model
   */
  modelSizes() { return JSON.parse(this.text((h) => this.g.m._galloc_js_doc_model_sizes(h))); }

  /** @returns {ExplainResult} as Galloc.explain gives it */
  explain() { return JSON.parse(this.text((h) => this.g.m._galloc_js_doc_explain(h))); }

  /** Free the document in the module; later calls throw. Closing twice is fine. */
  close() {
    if (this.handle !== 0 && this.g.dead === null) this.g.m._galloc_js_doc_close(this.handle);
    this.handle = 0;
  }

  /** @private */
  text(fn) {
    if (this.handle === 0) throw gallocError('the document was closed', 'bad-argument', -1);
    this.g.alive();
    const r = this.g.call(() => fn(this.handle)) >>> 0;
    if (r === 0) throw this.g.lastError();
    return this.g.takeString(r);
  }

  /**
   * @private a binary result of fn, decoded where it lies in the module's memory, then freed
   * @template T
   * @param {(handle: number) => number} fn
   * @param {(bytes: Uint8Array) => T} decode
   * @returns {T}
   */
  binary(fn, decode) {
    if (this.handle === 0) throw gallocError('the document was closed', 'bad-argument', -1);
    this.g.alive();
    const r = this.g.call(() => fn(this.handle)) >>> 0;
    if (r === 0) throw this.g.lastError();
    try {
      const len = this.g.m._galloc_js_result_length() >>> 0;
      return decode(this.g.m.HEAPU8.subarray(r, r + len));
    } finally {
      this.g.m._galloc_js_free(r);
    }
  }
}

/**
 * A model opened in the module (Galloc.openModel): llama.cpp's graphs and compute buffer sizes
 * for any settings.
 */
export class GallocModel {
  /**
   * @param {Galloc} galloc
   * @param {number} handle
   * @param {{architecture: string, name: string}} info
   */
  constructor(galloc, handle, info) {
    /** @private */ this.g = galloc;
    /** @private */ this.handle = handle;
    /** @type {string} "llama", "gemma3", "gpt-oss", ... */
    this.architecture = info.architecture;
    /** @type {string} general.name or the card's name */
    this.name = info.name;
  }

  /**
   * The compute graph llama.cpp reserves for these settings, as a graph document.
   * @param {Partial<ModelSettings>} settings missing ones take llama.cpp's defaults
   * @returns {object} the "galloc-graph" document
   * @throws {GallocError} 'bad-argument' naming the setting: of the wrong kind ("settings.n_ctx: ..."),
   *   or one llama.cpp refuses (the message starts with its flag: "-np: ..."); 'limit' for a graph past
   *   what the module holds ("-c/-ub: ..."); 'invalid-input' for a model llama.cpp would refuse
   */
  document(settings) {
    return JSON.parse(this.documentText(settings));
  }

  /**
   * @param {Partial<ModelSettings>} settings
   * @returns {string} the graph document as JSON text
   */
  documentText(settings) {
    const h = this.open();
    return this.g.withInput(toJSON(settings ?? {}), (ptr, len) => this.g.m._galloc_js_model_document(h, ptr, len));
  }

  /**
   * The compute buffer sizes llama.cpp logs for these settings (it reserves the prompt graph,
   * the one-token graph and the prompt graph again; a buffer only grows).
   * @param {Partial<ModelSettings>} settings
   * @returns {ModelSizes}
   * @throws {GallocError} as document()
   */
  sizes(settings) {
    const h = this.open();
    return JSON.parse(this.g.withInput(toJSON(settings ?? {}), (ptr, len) => this.g.m._galloc_js_model_sizes(h, ptr, len)));
  }

  /**
   * llama.cpp's memory breakdown per buffer type for a line of llama.cpp's flags, as `galloc model`
   * takes them ("-c 4096 -ngl 16 --device cuda:12GiB"; no device: the CPU alone): weights (model),
   * KV cache (context) and compute buffers in bytes, as the CLI's --json; device -1 for a host
   * buffer type.
   * @param {string} flags
   * @returns {{format: 'galloc-memory', version: 1, buffer_types: {name: string, device: number, model: number, context: number, compute: number}[]}}
   * @throws {GallocError} flags llama.cpp refuses ('bad-argument', the message starting with the flag)
   */
  memory(flags) {
    const h = this.open();
    return JSON.parse(this.g.withInput(String(flags ?? ''), (ptr, len) => this.g.m._galloc_js_model_memory(h, ptr, len)));
  }

  /**
   * llama.cpp's --fit (common/fit.cpp) for a line of flags as `galloc model ... --fit` takes them
   * ("--device cuda:24GiB --fit-target 1024 --fit-ctx 4096"): the context, -ngl, -ts and -ot
   * overrides it chooses, its messages in order, and the breakdown with those flags.
   * @param {string} flags
   * @returns {{format: 'galloc-fit', version: 1, status: 'success'|'failure', reason: string|null, flags: string,
   *   n_ctx: number, n_gpu_layers: number, tensor_split: number[], overrides: {pattern: string, buft: string}[],
   *   measurements: number, log: string[], memory: object|null}}
   * @throws {GallocError} flags llama.cpp refuses ('bad-argument'); 'declined' over devices in a
   *   module whose size_t has 32 bits
   */
  fit(flags) {
    const h = this.open();
    return JSON.parse(this.g.withInput(String(flags ?? ''), (ptr, len) => this.g.m._galloc_js_model_fit(h, ptr, len)));
  }

  /**
   * What a settings change shows, from one build of the graph: the sizes (as sizes()) and the
   * graph document they were planned from, read and planned in the module and kept there as
   * Galloc.open keeps a document (its graph() is document()'s, its plan() the CLI's plan of it).
   * The caller owns the document: close it when done (the module keeps at most 16 open).
   * @param {Partial<ModelSettings>} settings
   * @returns {{sizes: ModelSizes, document: GallocDocument}}
   * @throws {GallocError} as document(); 'bad-argument' when 16 documents are open
   */
  build(settings) {
    const h = this.open();
    const handle = this.g.withInputNumber(toJSON(settings ?? {}), (ptr, len) => this.g.m._galloc_js_model_build_document(h, ptr, len));
    const document = new GallocDocument(this.g, handle);
    try {
      return { sizes: document.modelSizes(), document };
    } catch (e) {
      document.close();
      throw e;
    }
  }

  /** Free the model in the module; later calls throw. */
  close() {
    if (this.handle !== 0 && this.g.dead === null) this.g.m._galloc_js_model_close(this.handle);
    this.handle = 0;
  }

  /** @private */
  open() {
    if (this.handle === 0) throw gallocError('the model was closed', 'bad-argument', -1);
    return this.handle;
  }
}

/**
 * An integer option in [min, max], or a 'bad-argument' GallocError.
 * @param {unknown} v
 * @param {number} min
 * @param {number} max
 * @param {string} name
 * @returns {number}
 */
function checkInteger(v, min, max, name) {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) {
    throw gallocError(`${name}: ${String(v)} is not an integer in [${min}, ${max}]`, 'bad-argument', -1);
  }
  return v;
}

/**
 * A capacity in bytes as a BigInt in [0, 2^64): null/undefined/'' are 0 (none).
 * @param {unknown} v
 * @returns {bigint}
 */
function checkCapacity(v) {
  if (v === null || v === undefined || v === '') return 0n;
  let b;
  try {
    // a number, a BigInt or a decimal string only: BigInt() alone takes true, [5] and "0x10"
    if (typeof v === 'number' && !Number.isSafeInteger(v)) throw new Error('not exact');
    if (typeof v === 'string' && !/^\s*\d+\s*$/.test(v)) throw new Error('not decimal');
    if (typeof v !== 'number' && typeof v !== 'bigint' && typeof v !== 'string') throw new Error('not a number');
    b = BigInt(/** @type {any} */ (v));
  } catch {
    throw gallocError(`capacity: ${String(v)} is not a whole number of bytes`, 'bad-argument', -1);
  }
  if (b < 0n || b >= 1n << 64n) throw gallocError(`capacity: ${b} is not in [0, 2^64)`, 'bad-argument', -1);
  return b;
}

/**
 * @param {string} message
 * @param {GallocErrorCode} code
 * @param {number} status
 * @returns {GallocError}
 */
function gallocError(message, code, status) {
  const e = /** @type {GallocError} */ (new Error(message));
  e.code = code;
  e.status = status;
  return e;
}
