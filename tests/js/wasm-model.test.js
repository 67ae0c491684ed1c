// wasm-model.test.js: llama.cpp's graphs and compute buffer sizes through the WebAssembly module.
//
// For every row of tests/models-real/manifest.tsv (../shared/models-real), the model opened from the GGUF
// header reports llama.cpp's logged compute buffer size and a graph of the manifest's node
// count; cards open and agree with the native CLI; bad settings, headers, cards and handles
// throw errors with a code and a message naming the place, and the instance stays intact with
// nothing left allocated.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { CLI, ROOT, loadWasm, requireCli } from './wasm-helpers.js';

const galloc = await loadWasm();
const DIR = path.join(ROOT, 'tests/models-real/gguf');
const [head, ...lines] = readFileSync(path.join(ROOT, 'tests/models-real/manifest.tsv'), 'utf8').trim().split('\n').map((l) => l.split('\t'));
const rows = lines.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]])));
const gguf = (model) => new Uint8Array(readFileSync(path.join(DIR, `${model}.meta.gguf`)));
const settingsOf = (r) => ({
  n_ctx: Number(r.n_ctx), n_batch: Number(r.n_batch), n_ubatch: Number(r.n_ubatch), flash_attn: Number(r.fa),
  type_k: r.type_k, type_v: r.type_v, n_seq: Number(r.n_seq), graph: r.graph_kind,
});
const mib = (z) => (z.buffer_types.reduce((n, b) => n + b.compute, 0) / 1048576).toFixed(2);

describe('models from GGUF headers, against llama.cpp', () => {
  const models = [...new Set(rows.map((r) => r.model))];
  for (const name of models) {
    it(`${name}: every manifest row's compute buffer size and node count`, () => {
      const m = galloc.openModel({ gguf: gguf(name) });
      try {
        for (const r of rows.filter((x) => x.model === name)) {
          const z = m.sizes(settingsOf(r));
          expect(`${r.file}: ${mib(z)}`).toBe(`${r.file}: ${r.llamacpp_compute_mib}`);
          expect(z.n_nodes).toBe(Number(r.nodes));
          // both from one build (the model page's call): these sizes, and the document kept in the
          // module, whose graph and plan (crossed as binary) are those of document()'s text
          const both = m.build(settingsOf(r));
          try {
            expect(both.sizes).toEqual(z);
            const text = m.documentText(settingsOf(r));
            const graph = both.document.graph();
            expect(JSON.stringify(graph) === JSON.stringify(galloc.normalize(text))).toBe(true);
            expect(JSON.stringify(both.document.plan()) === JSON.stringify(galloc.plan(text))).toBe(true);
            expect(graph.nodes.length).toBe(Number(r.nodes));
          } finally {
            both.document.close();
          }
        }
        const r0 = rows.find((x) => x.model === name);
        const doc = m.document(settingsOf(r0));
        expect(doc.format).toBe('galloc-graph');
        expect(doc.nodes.length).toBe(Number(r0.nodes));
        expect(doc.tensors.length).toBe(Number(r0.tensors));
      } finally {
        m.close();
      }
    });
  }
});

describe('cards', () => {
  const cards = galloc.modelCards();
  it('lists cards with descriptions', () => {
    expect(cards.length).toBeGreaterThanOrEqual(5);
    for (const c of cards) expect(c.description.length).toBeGreaterThan(10);
  });
  it('each card reports the sizes the CLI prints', () => {
    requireCli();
    for (const c of cards) {
      const m = galloc.openModel({ card: c.name });
      const z = m.sizes({ n_ctx: 4096, n_batch: 512, n_ubatch: 512, flash_attn: 1 });
      m.close();
      const out = execFileSync('sh', ['-c', '"$0" model --card "$1" -c 4096 -b 512 -ub 512 -fa on -o /dev/null 2>&1 >/dev/null', CLI, c.name], { encoding: 'utf8' });
      const want = out.split('\n').filter((l) => / compute buffer size = /.test(l)).map((l) => l.trim());
      const got = z.buffer_types.map((b) => `${b.name} compute buffer size = ${(b.compute / 1048576).toFixed(2)} MiB`);
      expect(`${c.name}: ${got.join('; ')}`).toBe(`${c.name}: ${want.join('; ')}`);
    }
  });
  it('defaults are llama.cpp\'s', () => {
    expect(galloc.modelDefaults()).toEqual({ n_ctx: 0, n_batch: 2048, n_ubatch: 512, flash_attn: 1, type_k: 'f16', type_v: 'f16', n_seq: 1, graph: 'prompt' });
  });
});

describe('bad input to the model exports', () => {
  const expectError = (fn, code, message) => {
    const before = galloc.heapUsed();
    let error = null;
    try { fn(); } catch (e) { error = e; }
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(message);
    expect(galloc.heapUsed()).toBe(before);
    const m = galloc.openModel({ gguf: gguf('llama3-tiny') }); // the instance still works
    expect(m.architecture).toBe('llama');
    m.close();
  };
  const tiny = galloc.openModel({ gguf: gguf('llama3-tiny') });

  it('a setting of the wrong kind names it', () => {
    expectError(() => tiny.sizes({ type_k: 'q9_9' }), 'bad-argument', /^settings\.type_k: /);
    expectError(() => tiny.sizes({ n_ctx: 'many' }), 'bad-argument', /^settings\.n_ctx: /);
    expectError(() => tiny.sizes({ context: 4096 }), 'bad-argument', /^settings\.context: /);
    expectError(() => tiny.document({ graph: 'both' }), 'bad-argument', /^settings\.graph: /);
  });
  it('settings llama.cpp refuses fail with a message', () => {
    expectError(() => tiny.sizes({ n_seq: 0 }), 'bad-argument', /^-np: 0 sequences/);
    expectError(() => tiny.document({ n_ctx: -5 }), 'bad-argument', /^-c: context -5 out of range/);
    expectError(() => tiny.sizes({ flash_attn: 7 }), 'bad-argument', /^-fa: 7/);
    expectError(() => tiny.build({ n_seq: 0 }), 'bad-argument', /^-np: 0 sequences/);
    expectError(() => tiny.build({ context: 4096 }), 'bad-argument', /^settings\.context: /);
  });
  it('a bad header, an unknown card, an unknown architecture', () => {
    expectError(() => galloc.openModel({ gguf: gguf('llama3-tiny').subarray(0, 500) }), 'invalid-input', /^offset \d+: /);
    expectError(() => galloc.openModel({ card: 'no-such-model' }), 'not-found', /no-such-model/);
    const bytes = gguf('llama3-tiny');
    const patched = bytes.slice();
    const at = Buffer.from(patched).indexOf('llama', 24); // general.architecture's value
    patched.set(new TextEncoder().encode('lamma'), at);
    expectError(() => galloc.openModel({ gguf: patched }), 'invalid-input', /lamma/);
    expectError(() => galloc.openModel({}), 'bad-argument', /openModel/);
  });
  it('a closed model', () => {
    const m = galloc.openModel({ card: galloc.modelCards()[0].name });
    m.close();
    expectError(() => m.sizes({}), 'bad-argument', /closed/);
    expectError(() => m.build({}), 'bad-argument', /closed/);
  });
  it('opening and closing leaves nothing allocated', () => {
    const before = galloc.heapUsed();
    for (let i = 0; i < 40; i++) galloc.openModel({ gguf: gguf('gemma3-tiny') }).close();
    expect(galloc.heapUsed()).toBe(before);
  });
  it('building, failed or not, leaves nothing allocated', () => {
    const m = galloc.openModel({ gguf: gguf('gemma3-tiny') });
    const before = galloc.heapUsed();
    for (let i = 0; i < 10; i++) {
      const { document } = m.build({ n_ctx: 512 * (i + 1) });
      document.graph();
      document.plan();
      document.close();
      expect(() => m.build({ n_seq: 0 })).toThrow();
    }
    expect(galloc.heapUsed()).toBe(before);
    m.close();
  });
  it('a build takes a document handle: when all 16 are taken it fails, and a document not built from a model has no sizes', () => {
    const m = galloc.openModel({ gguf: gguf('gemma3-tiny') });
    const before = galloc.heapUsed();
    const open = [];
    try {
      for (let i = 0; i < 16; i++) open.push(m.build({ n_ctx: 512 }).document);
      expectError(() => m.build({ n_ctx: 512 }), 'bad-argument', /16 documents are open already/);
      expect(open[3].modelSizes()).toEqual(m.sizes({ n_ctx: 512 }));
    } finally {
      for (const d of open) d.close();
    }
    const d = galloc.open(m.documentText({ n_ctx: 512 }));
    try {
      expectError(() => d.modelSizes(), 'bad-argument', /was not built from a model/);
    } finally { d.close(); }
    expect(galloc.heapUsed()).toBe(before);
    m.close();
  });
});
