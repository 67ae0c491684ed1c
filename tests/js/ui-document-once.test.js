// ui-document-once.test.js: the UI reads and plans each graph document once (issue 15: big graphs
// stay interactive). An import hands the document to the WASM module once (Galloc.open) and takes
// the graph, the plan and the explanation from what the module kept; the editor's text of an
// imported document is written after its plan is on screen; a lone UTF-16 surrogate (a broken
// pasted character) gets the CLI's verdict for the same bytes, or an error at its line, never a
// silent U+FFFD.

import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import * as ui from '../../web/src/state.js';
import { parseGraphText } from '../../web/src/core/graph-text.js';
import { textBytes } from '../../web/src/core/galloc.js';
import { CLI, loadWasm, planDifferences, requireCli } from './wasm-helpers.js';
import { cBadDocuments } from './c-bad-documents.js';

const g = await loadWasm();
ui.galloc.value = g;

const DOC = JSON.stringify({
  tensors: [
    { name: 'x', op: 'NONE', type: 'f32', ne: [64], flags: ['input'] },
    { name: 'a', op: 'SCALE', type: 'f32', ne: [64], src: [0] },
    { name: 'b', op: 'ADD', type: 'f32', ne: [64], src: [1, 0] },
    { name: 'c', op: 'MUL', type: 'f32', ne: [64], src: [2, 1], flags: ['output'] },
  ],
  outputs: [3],
}, null, 2);

/** the CLI's verdict on bytes: exit status, message without "galloc: -: ", plan */
function cli(bytes) {
  requireCli();
  const r = spawnSync(CLI, ['plan', '-'], { input: Buffer.from(bytes), encoding: 'utf8' });
  return { status: r.status, message: r.stderr.trim().replace(/^galloc: -: /, ''), plan: r.status === 0 ? JSON.parse(r.stdout) : null };
}

/** count the calls of the module's exports that read a document */
function countReads() {
  const m = g.m;
  const names = ['_galloc_js_doc_open', '_galloc_js_plan', '_galloc_js_graph', '_galloc_js_explain'];
  const counts = Object.fromEntries(names.map((n) => [n, 0]));
  const saved = names.map((n) => m[n]);
  names.forEach((n, k) => { m[n] = (...a) => { counts[n]++; return saved[k](...a); }; });
  return { counts, restore: () => names.forEach((n, k) => { m[n] = saved[k]; }) };
}

beforeEach(() => ui.loadPreset('test_reuse_and_free'));
afterEach(() => ui.flushText());

describe('an imported document is read and planned once', () => {
  it('the plan, the graph and the explanation come from the one read', () => {
    const spy = countReads();
    try {
      expect(ui.importGraph(DOC)).toBe(true);
      expect(ui.explanation.value.n_tensors).toBe(4);
      ui.flushText();
    } finally { spy.restore(); }
    expect(spy.counts).toEqual({ _galloc_js_doc_open: 1, _galloc_js_plan: 0, _galloc_js_graph: 0, _galloc_js_explain: 0 });
    expect(planDifferences(ui.plan.value, cli(new TextEncoder().encode(DOC)).plan)).toEqual([]);
  });

  it('a graph text edit is read once too (its explanation from the kept document)', () => {
    const spy = countReads();
    try {
      expect(ui.replaceText('x = input(f32, 8)\ny = scale(x)\nz = add(y, x)\noutput(z)\n')).toBe(true);
      expect(ui.explanation.value.n_tensors).toBe(3);
    } finally { spy.restore(); }
    expect(spy.counts._galloc_js_doc_open).toBe(1);
    expect(spy.counts._galloc_js_explain + spy.counts._galloc_js_plan).toBe(0);
  });

  it('the module keeps only the graph on screen: each new graph closes the one before', () => {
    const heap0 = g.heapUsed();
    for (let k = 0; k < 40; k++) ui.replaceText(`x = input(f32, ${8 + k})\ny = scale(x)\noutput(y)\n`); // more than the 16 handles
    expect(ui.plan.value.tensors).toHaveLength(2);
    ui.loadPreset('test_reuse_and_free');
    // exactly one handle held (the graph on screen): 15 more open, the 16th is refused
    const open = Array.from({ length: 16 - 1 }, () => g.open(DOC));
    try {
      expect(() => g.open(DOC)).toThrow(/16 documents are open already/);
    } finally { open.forEach((d) => d.close()); }
    // and no memory kept per graph: one kept document is kilobytes, 40 of them far more; the same
    // sequence twice ends a few bytes apart (6,992, 7,008, 7,000), so the heap is compared within 64
    expect(Math.abs(g.heapUsed() - heap0)).toBeLessThan(64);
  });
});

describe('Galloc.open: a document kept in the module', () => {
  it('refuses every document of the C bad-input table as plan() does, and holds nothing after', () => {
    const heap = g.heapUsed();
    for (const row of cBadDocuments()) {
      let a = null;
      let b = null;
      try { g.open(row.bytes).close(); } catch (e) { a = [e.code, e.message]; }
      try { g.planText(row.bytes); } catch (e) { b = [e.code, e.message]; }
      expect(a).toEqual(b);
      expect(a).not.toBeNull();
    }
    expect(g.heapUsed()).toBe(heap);
  });
  it('its graph, plan and explanation are those of normalize(), plan() and explain()', () => {
    const d = g.open(DOC);
    try {
      expect(d.graph()).toEqual(g.normalize(DOC));
      expect(d.planText()).toBe(g.planText(DOC));
      expect(d.explain()).toEqual(g.explain(DOC));
    } finally { d.close(); }
  });
  it('at most 16 open at once (a clear error past them); a closed one says so', () => {
    const open = Array.from({ length: 16 - 1 }, () => g.open(DOC)); // the graph on screen holds one
    try {
      expect(() => g.open(DOC)).toThrow(/16 documents are open already/);
    } finally { open.forEach((d) => d.close()); }
    const d = g.open(DOC);
    d.close();
    d.close(); // twice is fine
    expect(() => d.plan()).toThrow('the document was closed');
  });
});

describe('the editor text of an imported document is written after its plan', () => {
  it('the plan is on screen first; then the text, which reads back to the document', () => {
    const before = ui.text.value;
    expect(ui.importGraph(DOC, 'doc.json')).toBe(true);
    expect(ui.plan.value.tensors).toHaveLength(4);
    expect(ui.textPending.value).toBe(true);
    expect(ui.text.value).toBe(before); // not written yet
    ui.flushText();
    expect(ui.textPending.value).toBe(false);
    const back = parseGraphText(ui.text.value);
    expect(back.errors).toBeUndefined();
    expect(g.normalize(back.doc).tensors).toEqual(g.normalize(DOC).tensors);
    // the lines the writer gave are where the parser finds the tensors
    expect(ui.meta.value.tensorLines).toEqual(back.meta.tensorLines);
  });

  it('the text is written by itself shortly after', async () => {
    expect(ui.importGraph(DOC)).toBe(true);
    expect(ui.textPending.value).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    expect(ui.textPending.value).toBe(false);
    expect(ui.text.value).toContain('c = mul(b, a)');
  });

  it('an edit that needs the text writes it first', () => {
    expect(ui.importGraph(DOC)).toBe(true);
    expect(ui.textPending.value).toBe(true);
    expect(ui.setMaxSize(0, 1 << 20)).toBe(true);
    expect(ui.textPending.value).toBe(false);
    expect(ui.text.value).toMatch(/@buffer host align=32 max=1MiB/);
    expect(ui.graph.value.tensors.map((t) => t.name)).toEqual(['x', 'a', 'b', 'c']);
  });

  it('another graph before the text is written: the old text is never written over the new one', () => {
    expect(ui.importGraph(DOC)).toBe(true);
    ui.loadPreset('test_reuse_and_free');
    ui.flushText();
    expect(ui.graph.value.name).toBe('test_reuse_and_free');
    expect(ui.text.value).toContain('@name test_reuse_and_free');
  });
});

describe('a lone UTF-16 surrogate (a broken pasted character) is refused where it is', () => {
  it('in a pasted document: the CLI\'s verdict for the same bytes, at its line and column', () => {
    const pasted = DOC.replace('"name": "a"', '"name": "a\ud800"');
    const bytes = textBytes(pasted);
    expect([...bytes.subarray(bytes.indexOf(0xed), bytes.indexOf(0xed) + 3)]).toEqual([0xed, 0xa0, 0x80]);
    const c = cli(bytes);
    expect(c.status).toBe(3);
    const before0 = pasted.slice(0, pasted.indexOf('\ud800')).split('\n');
    const line = before0.length;
    const column = new TextEncoder().encode(before0[line - 1]).length + 1; // the CLI counts bytes
    expect(c.message).toBe(`line ${line}, column ${column}: invalid UTF-8 in a string (byte 0xED)`);
    const before = ui.graph.value;
    expect(ui.importGraph(pasted)).toBe(false);
    expect(ui.notice.value.message).toBe(`could not import the input: ${c.message}`);
    expect(ui.graph.value).toBe(before);
  });

  it('a surrogate pair (a real character) is no lone surrogate', () => {
    const pasted = DOC.replace('"name": "a"', '"name": "a\ud83d\ude00"');
    expect(ui.importGraph(pasted)).toBe(true);
    expect(ui.graph.value.tensors[1].name).toBe('a\u{1f600}');
  });

  it('in graph text: an error at its line and column; the text stays as typed', () => {
    const t = 'x = input(f32, 4)\n"y\udc00" = scale(x)\noutput(x)\n';
    const r = parseGraphText(t);
    expect(r.errors).toEqual([{ line: 2, message: expect.stringMatching(/^a lone UTF-16 surrogate \(U\+DC00\) at column 3,/) }]);
    const plan = ui.plan.value;
    expect(ui.replaceText(t)).toBe(false);
    expect(ui.text.value).toBe(t);
    expect(ui.textErrors.value[0].line).toBe(2);
    expect(ui.plan.value).toBe(plan); // the last good plan stays
  });

  it('in a comment too: nothing of the user\'s text is changed behind their back', () => {
    expect(parseGraphText('x = input(f32, 4) # \ud800\noutput(x)\n').errors[0].line).toBe(1);
  });
});
