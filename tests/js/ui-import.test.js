// ui-import.test.js: the UI's import path (state.js importGraph) against the native CLI
// (issues 14 and 15). Every document of the C bad-input table (tests/c/test-document.c, read from
// its source) is refused by the UI with the CLI's verdict and at the CLI's place; documents the
// CLI accepts import and plan exactly as the CLI plans them (numbers past 2^53 included); the graph
// on screen stays after a refusal.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';

import * as ui from '../../web/src/state.js';
import { parseGraphText } from '../../web/src/core/graph-text.js';
import { cBadDocuments } from './c-bad-documents.js';
import { cliVerdict, GOLDEN_DIR, loadWasm, planDifferences } from './wasm-helpers.js';

const g = await loadWasm();
ui.galloc.value = g;

const cli = cliVerdict; // the CLI's verdict on document bytes (wasm-helpers.js)

/** where a message says the problem is: its JSON path or "line L, column C" (all before the first ': ') */
const place = (message) => message.slice(0, message.indexOf(': '));

const PREFIX = 'could not import the input: ';

/** import through the UI; the notice's message without its prefix (null after a success) */
function uiImport(input) {
  const ok = ui.importGraph(input);
  const n = ui.notice.value;
  if (ok) {
    // a document's plan is on screen at once, its text written afterwards (or when something needs it)
    if (ui.textPending.value) ui.flushText();
    expect(ui.textPending.value).toBe(false);
    return null;
  }
  expect(n.kind).toBe('error');
  expect(n.message.startsWith(PREFIX)).toBe(true);
  return n.message.slice(PREFIX.length);
}

beforeAll(() => ui.loadPreset('test_reuse_and_free'));

describe('the C bad-input table through the UI import path: the CLI\'s verdict and place', () => {
  const rows = cBadDocuments();
  it('the table was read whole', () => {
    expect(rows.length).toBeGreaterThanOrEqual(100);
  });
  for (const row of rows) {
    it(`${row.text.length > 70 ? `${row.text.slice(0, 70)}…` : row.text || '(empty)'} -> ${row.expected}`, () => {
      const before = ui.graph.value;
      const textBefore = ui.text.value;
      const message = uiImport(row.bytes);
      const c = cli(row.bytes);
      expect(c.status).not.toBe(0);
      expect(message).not.toBeNull(); // the verdict: refused, like the CLI
      expect(place(message)).toBe(place(c.message)); // at the CLI's place
      expect(place(message)).toBe(place(row.expected));
      // the words too, but for the empty input, which the UI says is empty
      if (row.bytes.length > 0) expect(message).toBe(c.message);
      expect(ui.graph.value).toBe(before); // the graph on screen stays
      expect(ui.text.value).toBe(textBefore);
    });
  }
});

// x: input; a = scale(x) with a stride 2^53 + 1; b = add(a, x) with stride 2^53. The layouts differ,
// so b may not reuse a's memory (the CLI plans 96 bytes); JSON.parse makes both strides 2^53 and the
// UI planned b in place of a (64)
const BIG_STRIDES = `{"tensors": [
  {"name": "x", "op": "NONE", "type": "f32", "ne": [8], "flags": ["input"]},
  {"name": "a", "op": "SCALE", "type": "f32", "ne": [8], "nb": [4, 32, 9007199254740993, 9007199254740993], "src": [0]},
  {"name": "b", "op": "ADD", "type": "f32", "ne": [8], "nb": [4, 32, 9007199254740992, 9007199254740992], "src": [1, 0], "flags": ["output"]}
], "outputs": [2]}`;

// documents the CLI plans (each checked below against the CLI itself)
const GOOD = [
  ['no tensor names', '{"tensors": [{"op": "NONE", "type": "f32", "ne": [4]}, {"op": "ADD", "type": "f32", "ne": [4], "src": [0, 0]}], "outputs": [1]}'],
  ['outputs: [] (every tensor outside the graph)', '{"tensors": [{"name": "a", "op": "NONE", "type": "f32", "ne": [4]}], "outputs": []}'],
  ['nameless tensors outside the graph', '{"tensors": [{"op": "NONE", "type": "f32", "ne": [4]}, {"op": "NONE", "type": "f32", "ne": [4]}], "outputs": []}'],
  ['"version": "1" (a number as a decimal string)', '{"version": "1", "tensors": [{"name": "a", "op": "NONE", "type": "f32", "ne": [4]}], "outputs": [0]}'],
  ['max_size 2^64 - 1 (no limit)', '{"buffer_types": [{"name": "h", "alignment": 32, "max_size": 18446744073709551615}], "tensors": [{"name": "a", "op": "NONE", "type": "f32", "ne": [4]}], "outputs": [0]}'],
  ['ggml_cast: a CPY whose src[1] is itself', '{"tensors": [{"name": "a", "op": "NONE", "type": "f32", "ne": [8, 2], "flags": ["input"]}, {"name": "a (copy)", "op": "CPY", "type": "f16", "ne": [8, 2], "src": [0, 1]}, {"name": "s", "op": "SCALE", "type": "f16", "ne": [8, 2], "src": [1], "flags": ["output"]}], "outputs": [2]}'],
  ['strides past 2^53', BIG_STRIDES],
  ['an op the tables lack, not spelled in capitals', '{"tensors": [{"name": "a", "op": "NONE", "type": "f32", "ne": [4]}, {"name": "b", "op": "my_op2", "type": "f32", "ne": [4], "src": [0]}], "outputs": [1]}'],
  ['a unary op whose name starts with a digit (kept by name)', '{"tensors": [{"name": "a", "op": "NONE", "type": "f32", "ne": [4]}, {"name": "b", "op": "UNARY", "unary_op": "1x", "type": "f32", "ne": [4], "src": [0]}], "outputs": [1]}'],
  ['a unary op spelled in lower case (kept by name)', '{"tensors": [{"name": "a", "op": "NONE", "type": "f32", "ne": [4]}, {"name": "b", "op": "UNARY", "unary_op": "relu", "type": "f32", "ne": [4], "src": [0]}], "outputs": [1]}'],
  ['tensors of one name, and an empty document', '{"tensors": [{"name": "a", "op": "NONE", "type": "f32", "ne": [4]}, {"name": "a", "op": "NONE", "type": "f32", "ne": [4]}, {"name": "", "op": "ADD", "type": "f32", "ne": [4], "src": [0, 1]}], "outputs": [2]}'],
  ['no tensors at all', '{"tensors": [], "nodes": [], "leafs": []}'],
  ['a pretty-printed golden graph', readFileSync(path.join(GOLDEN_DIR, 'llama-tiny-2buft.graph.json'), 'utf8')],
];

describe('documents the CLI accepts: the UI imports them and plans exactly what the CLI plans', () => {
  for (const [what, text] of GOOD) {
    it(what, () => {
      const c = cli(new TextEncoder().encode(text));
      expect(c.status).toBe(0);
      expect(uiImport(text)).toBeNull();
      expect(planDifferences(ui.plan.value, c.plan)).toEqual([]);
      // the text the UI wrote for it reads back to the same document (as the C reader sees both)
      const back = parseGraphText(ui.text.value);
      expect(back.errors).toBeUndefined();
      const again = g.normalize(back.doc);
      const first = g.normalize(text);
      expect(again.tensors).toEqual(first.tensors);
      expect([again.nodes, again.leafs, again.buffer_types]).toEqual([first.nodes, first.leafs, first.buffer_types]);
    });
  }

  it('strides past 2^53 stay exact: 96 bytes as the CLI plans, not 64 (b in place of a)', () => {
    expect(uiImport(BIG_STRIDES)).toBeNull();
    expect(ui.plan.value.buffers[0].size).toBe(96);
    expect(ui.plan.value.tensors[2].how).not.toBe('inplace');
    expect(ui.text.value).toContain('9007199254740993');
  });
});

describe('messages as the CLI gives them (they misled)', () => {
  it('max_size 2^64 keeps its digits (was "18446744073709552000 is past 2^64 - 1")', () => {
    const doc = '{"buffer_types": [{"name": "h", "alignment": 32, "max_size": 18446744073709551616}], "tensors": [], "outputs": []}';
    expect(uiImport(doc)).toBe('buffer_types[0].max_size: 18446744073709551616 is past 2^64 - 1');
  });
  it('a lone \\ud800 in a pretty-printed file is placed in the user\'s file (line 3, column 16)', () => {
    const doc = '{\n  "tensors": [\n    {"name": "x\\ud800", "op": "NONE", "type": "f32", "ne": [4]}\n  ],\n  "outputs": [0]\n}\n';
    const message = uiImport(new TextEncoder().encode(doc));
    expect(message).toBe(cli(new TextEncoder().encode(doc)).message);
    expect(place(message)).toBe('line 3, column 16');
  });
  it('duplicate keys are refused where the second one is', () => {
    expect(uiImport('{"tensors": [], "outputs": [], "outputs": []}')).toBe('line 1, column 32: duplicate key "outputs"');
  });
});
