// wasm-binary.test.js: the graph and plan cross from the module as compact binary
// (c/include/galloc-binary.h, decoded by web/src/core/galloc-binary.js) and come out as exactly the
// objects JSON.parse makes of the JSON documents: the same keys in the same order, the same numbers
// (decimal strings past 2^53). The oracle for plans is the native CLI's `galloc plan` (another
// process, the JSON writer); for graphs the module's JSON writer (graphText, what a user saves) and
// Galloc.normalize; the plan text also byte for byte, laid out from the binary plan by
// plan-layout.js. Every golden, golden-real and models-real graph; values past 2^53; a damaged
// binary refused; nothing left allocated after many opens.

import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { decodeGraph, decodePlan, i64Value, u64Value } from '../../web/src/core/galloc-binary.js';
import { planLayout } from './plan-layout.js';
import { ROOT, cliPlanText, goldenText, loadWasm, requireCli } from './wasm-helpers.js';

const galloc = await loadWasm();

/** every *.graph.json of a folder of tests/ */
function graphsIn(dir) {
  const full = path.join(ROOT, 'tests', dir);
  return readdirSync(full).filter((f) => f.endsWith('.graph.json')).sort().map((f) => path.join(full, f));
}

/** the CLI's plans of many files at once (one process per file is the cost of this test) */
function cliPlans(files) {
  requireCli();
  return files.map((f) => cliPlanText(readFileSync(f, 'utf8')));
}

/**
 * The binary graph and plan of a document against the JSON texts: deep equality and the same
 * JSON.stringify (the same keys in the same order, the same numbers).
 * @returns {string[]} what differs
 */
function differences(label, d, planText = d.planText()) {
  const out = [];
  const graph = d.graph();
  const plan = d.plan();
  const graphJson = JSON.parse(d.graphText());
  const planJson = JSON.parse(planText);
  if (JSON.stringify(graph) !== JSON.stringify(graphJson)) out.push(`${label}: graph ${firstDifference(JSON.stringify(graph), JSON.stringify(graphJson))}`);
  if (JSON.stringify(plan) !== JSON.stringify(planJson)) out.push(`${label}: plan ${firstDifference(JSON.stringify(plan), JSON.stringify(planJson))}`);
  // and the JSON text byte for byte: the binary plan's values in the format's layout (plan-layout.js)
  const laidOut = planLayout(plan);
  if (laidOut !== planText) out.push(`${label}: plan text ${firstDifference(laidOut, planText)}`);
  return out;
}

function firstDifference(a, b) {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `binary …${a.slice(Math.max(0, i - 60), i + 60)}… JSON …${b.slice(Math.max(0, i - 60), i + 60)}…`;
}

describe('the decoded graph and plan are the JSON documents', () => {
  for (const dir of ['golden', 'golden-real', 'models-real/graphs']) {
    it(`every tests/${dir} graph: the plan is the CLI's, the graph the JSON writer's`, { timeout: 600000 }, () => {
      const files = graphsIn(dir);
      expect(files.length).toBeGreaterThan(10);
      const wants = cliPlans(files);
      const problems = [];
      files.forEach((f, k) => {
        const bytes = new Uint8Array(readFileSync(f));
        const d = galloc.open(bytes);
        try {
          problems.push(...differences(path.basename(f), d, wants[k]));
          if (k % 8 === 0) expect(d.graph()).toEqual(galloc.normalize(bytes)); // and the reader's other path
        } finally {
          d.close();
        }
      });
      expect(problems.slice(0, 5)).toEqual([]);
    });
  }

  it('every built-in preset and a model card\'s graph', () => {
    const problems = [];
    for (const p of galloc.presets()) {
      const d = galloc.open(galloc.presetText(p.name));
      try { problems.push(...differences(p.name, d)); } finally { d.close(); }
    }
    const m = galloc.openModel({ card: 'gemma-3-4b' });
    try {
      const d = galloc.open(m.documentText({ n_ctx: 4096 }));
      try { problems.push(...differences('gemma-3-4b', d)); } finally { d.close(); }
    } finally { m.close(); }
    expect(problems).toEqual([]);
  });
});

describe('names as the JSON path gives them', () => {
  it('two-, three- and four-byte UTF-8, control characters, quotes, an unnamed tensor, unknown ops and types, a unary op', () => {
    const doc = {
      name: 'caf\u00e9 \u{1F600}',
      buffer_types: [{ name: 'dev\u20ac', alignment: 32, max_size: null }, { name: '', alignment: 64, max_size: 4096 }],
      type_traits: [{ name: 'q9_k', blck_size: 256, type_size: 200 }],
      tensors: [
        { name: 'caf\u00e9', op: 'NONE', type: 'f32', ne: [4, 8], flags: ['input'] },
        { name: '\u20ac\u{1F600}x\u0001\u001b"\\', op: 'NONE', type: 'q9_k', ne: [256], buffer_type: 1 },
        { name: '', op: 'LIGHTNING_INDEXER', type: 'f32', ne: [4, 8], src: [0, null, 1], flags: ['output'] },
        { name: 'u', op: 'UNARY', unary_op: 'SILU', type: 'f32', ne: [4, 8], src: [2], flags: ['output'] },
      ],
      outputs: [2, 3],
    };
    const d = galloc.open(JSON.stringify(doc));
    try {
      expect(differences('names', d)).toEqual([]);
      const names = d.graph().tensors.map((t) => t.name);
      expect([names[0], names[1], names[3]]).toEqual([doc.tensors[0].name, doc.tensors[1].name, 'u']); // (the reader names the unnamed one)
      expect(d.graph().buffer_types.map((b) => b.name)).toEqual(['dev\u20ac', '']);
    } finally { d.close(); }
  });
});

describe('numbers past 2^53 stay exact', () => {
  const TWO53 = 2n ** 53n;
  const TIB = 2n ** 40n; // the largest tensor a document may have
  const N = 8194; // inputs of 1 TiB, all placed before the first node: the last ones lie past 2^53
  // an external weight with strides past 2^53 (its ne of 1 keep its bytes at 4) and a view 1 TiB - 4
  // bytes into another (the high word of view_offs)
  const doc = {
    format: 'galloc-graph',
    version: 1,
    name: 'past-2^53',
    buffer_types: [{ name: 'big', alignment: 32, max_size: String(TWO53 * 4n + 1n) }],
    tensors: [
      { name: 'w', op: 'NONE', type: 'f32', ne: [1], nb: [4, String(TWO53 + 4n), String(TWO53 * 2n + 8n), String(TWO53 * 2n + 8n)], buffer_type: 0 },
      { name: 'big', op: 'NONE', type: 'f32', ne: [String(TIB / 4n)], buffer_type: 0 },
      { name: 'v', op: 'VIEW', type: 'f32', ne: [1], src: [1], view_src: 1, view_offs: String(TIB - 4n) },
    ],
  };
  for (let k = 0; k < N; k++) doc.tensors.push({ name: `x${k}`, op: 'NONE', type: 'f32', ne: [String(TIB / 4n)], flags: ['input'] });
  for (let k = 0; k < N; k++) doc.tensors.push({ name: `y${k}`, op: 'SCALE', type: 'f32', ne: [String(TIB / 4n)], src: [3 + k], flags: ['output'] });
  doc.tensors.push({ name: 'z', op: 'ADD', type: 'f32', ne: [1], src: [2, 0], flags: ['output'] });
  doc.outputs = doc.tensors.map((t, i) => i).filter((i) => doc.tensors[i].flags?.includes('output'));

  it('offsets, sizes, strides, view offsets and max_size as the CLI writes them', { timeout: 120000 }, () => {
    const text = JSON.stringify(doc);
    const d = galloc.open(text);
    try {
      expect(differences('past-2^53', d, cliPlanText(text))).toEqual([]);
      const plan = d.plan();
      const graph = d.graph();
      // by hand: input k at k TiB (1 TiB is a multiple of the alignment); 2^53 is 8192 TiB
      expect(plan.tensors[3 + 8191]).toMatchObject({ chunk: 0, offset: Number(8191n * TIB), size: Number(TIB) });
      expect(plan.tensors[3 + 8192]).toMatchObject({ chunk: 0, offset: Number(TWO53) }); // 2^53 itself: a number
      expect(plan.tensors[3 + 8193]).toMatchObject({ chunk: 0, offset: String(TWO53 + TIB) });
      expect(plan.tensors[3 + N + 8193]).toMatchObject({ offset: String(TWO53 + TIB), how: 'inplace', parent: 3 + 8193 });
      expect(plan.buffers[0].max_size).toBe(String(TWO53 * 4n + 1n));
      expect(plan.buffers[0].chunk_sizes.map(BigInt)[0] >= TWO53 + 2n * TIB).toBe(true);
      expect(graph.tensors[0].nb).toEqual([4, String(TWO53 + 4n), String(TWO53 * 2n + 8n), String(TWO53 * 2n + 8n)]);
      expect(graph.tensors[2].view_offs).toBe(Number(TIB - 4n));
      expect(graph.buffer_types[0].max_size).toBe(String(TWO53 * 4n + 1n));
    } finally {
      d.close();
    }
  });

  it('u64Value and i64Value at the edges, against BigInt arithmetic', () => {
    const words = (v) => [Number(BigInt.asUintN(64, v) & 0xffffffffn), Number(BigInt.asUintN(64, v) >> 32n)];
    const want = (v) => (v <= TWO53 && v >= -TWO53 ? Number(v) : v.toString());
    for (const v of [0n, 1n, 4294967295n, 4294967296n, TWO53 - 1n, TWO53, TWO53 + 1n, 2n ** 63n - 1n, 2n ** 63n, 2n ** 64n - 1n, 12345678901234567n]) {
      expect(u64Value(...words(v))).toBe(want(v));
    }
    for (const v of [0n, -1n, -4294967296n, -4294967297n, -TWO53 + 1n, -TWO53, -TWO53 - 1n, -(2n ** 63n), TWO53, TWO53 + 1n, 2n ** 63n - 1n]) {
      expect(i64Value(...words(v))).toBe(want(v));
    }
  });
});

describe('a damaged binary is refused, never misread', () => {
  const d = galloc.open(goldenText('llama-tiny', 'graph'));
  const bytesOf = (exp) => {
    const r = galloc.m[exp](d.handle) >>> 0;
    const len = galloc.m._galloc_js_result_length() >>> 0;
    try { return galloc.m.HEAPU8.slice(r, r + len); } finally { galloc.m._galloc_js_free(r); }
  };
  const graph = bytesOf('_galloc_js_doc_graph_binary');
  const plan = bytesOf('_galloc_js_doc_plan_binary');
  d.close();

  it('decodes the bytes it was given (the instrument works)', () => {
    expect(decodeGraph(graph).tensors.length).toBe(decodePlan(plan).tensors.length);
  });
  it('a graph read as a plan, a bad magic, a truncated body, a word too many', () => {
    expect(() => decodePlan(graph)).toThrow(/bad header/);
    const magic = graph.slice();
    magic[0] ^= 1;
    expect(() => decodeGraph(magic)).toThrow(/bad header/);
    // the header says how long the body is: fix it up for a shorter and a longer body
    const resized = (bytes, words) => {
      const out = new Uint8Array(bytes.length + 4 * words);
      out.set(bytes.subarray(0, Math.min(bytes.length, out.length)));
      const w = new Uint32Array(out.buffer);
      w[8] += words;
      w[9] = out.length;
      return out;
    };
    expect(() => decodePlan(resized(plan, -1))).toThrow(/ends early|head/);
    expect(() => decodePlan(resized(plan, 1))).toThrow(/1 words after the plan/);
    expect(() => decodeGraph(resized(graph, -3))).toThrow(/ends early|string|dimensions/);
  });
  // a graph body written here (galloc-binary.h's layout): buffer type "b", n tensors "t" of op NONE,
  // type f32, ne [4], each with the flag bits given
  const handMade = (flagNames, n, flagBits) => {
    const strings = ['g', 'b', 't', 'NONE', 'f32', ...flagNames];
    const text = strings.join('');
    const ends = [];
    let at = 0;
    for (const x of strings) ends.push((at += x.length));
    const textBytes = new TextEncoder().encode(text);
    const body = [0, flagNames.length, ...flagNames.map((_, i) => 5 + i), 1, 1, 32, 0, 0, 0, n];
    for (let i = 0; i < n; i++) body.push((flagBits << 16) | 1, 2, 3, 4, 4, 0);
    body.push(0, 0, 0, 0);
    const endsAt = 10, textAt = 4 * (endsAt + ends.length), bodyAt = Math.ceil((textAt + textBytes.length) / 4);
    const total = 4 * (bodyAt + body.length);
    const out = new Uint8Array(total);
    const w = new Uint32Array(out.buffer);
    w.set([0x4e424c47, 1, 1, strings.length, endsAt, textAt, textBytes.length, bodyAt, body.length, total]);
    w.set(ends, endsAt);
    out.set(textBytes, textAt);
    w.set(body, bodyAt);
    return out;
  };
  it('flag names and bits the head cannot hold: refused (each tensor looped over every name, 1 << b wrapping)', () => {
    const flags = ['input', 'output', 'param', 'loss'];
    expect(decodeGraph(handMade(flags, 3, 0b101)).tensors.map((t) => t.flags)).toEqual([['input', 'param'], ['input', 'param'], ['input', 'param']]);
    expect(() => decodeGraph(handMade(flags, 3, 0b10001))).toThrow(/flag bits 0x11 of 4 flag names/);
    expect(() => decodeGraph(handMade(Array.from({ length: 9 }, (_, i) => `f${i}`), 1, 1))).toThrow(/9 flag names for 8 flag bits/);
    // 40,000 names and 10,000 flagged tensors: 400 million steps and a name list per tensor before
    expect(() => decodeGraph(handMade(Array.from({ length: 40000 }, (_, i) => `f${i}`), 10000, 0xff))).toThrow(/40000 flag names/);
  });
  it('a closed document', () => {
    expect(() => d.graph()).toThrow(/closed/);
    expect(() => d.plan()).toThrow(/closed/);
  });
});

describe('no leak', () => {
  it('400 opens, binary graph and plan, closes; bad documents in between: the same bytes in use', () => {
    const text = goldenText('rand-n100-s0-a32', 'graph');
    const warm = galloc.open(text);
    warm.graph();
    warm.plan();
    warm.close();
    const heap = galloc.heapUsed();
    const length = galloc.m.HEAPU8.length;
    for (let i = 0; i < 400; i++) {
      const d = galloc.open(text);
      d.graph();
      d.plan();
      if (i % 50 === 0) expect(() => galloc.open('{"tensors": [{"op": "NOPE"}]}')).toThrow();
      d.close();
    }
    expect(galloc.heapUsed()).toBe(heap);
    expect(galloc.m.HEAPU8.length).toBe(length);
  });
});
