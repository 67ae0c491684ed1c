// ui-type-traits.test.js: documents with custom types ("type_traits": types ggml's tables lack,
// with their elements and bytes per block) in the UI (issue 15: the one verdict where the UI and
// the CLI differed; the UI refused them). The UI imports and plans them exactly as the CLI does;
// their graph text holds the types as @type lines and reads back to the same document; what the
// UI exports (the document, the text, a link's text) plans as the CLI plans the original.

import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import * as ui from '../../web/src/state.js';
import { parseGraphText, graphToText } from '../../web/src/core/graph-text.js';
import { CLI, loadWasm, planDifferences, requireCli } from './wasm-helpers.js';

const g = await loadWasm();
ui.galloc.value = g;

/** the CLI's plan of a document's text (exit status, message, plan) */
function cli(text) {
  requireCli();
  const r = spawnSync(CLI, ['plan', '-'], { input: text, encoding: 'utf8' });
  return { status: r.status, message: r.stderr.trim().replace(/^galloc: -: /, ''), plan: r.status === 0 ? JSON.parse(r.stdout) : null };
}

// fp3: 64 elements in 26 bytes (128 x 3 is 2 blocks of 26 bytes per row: 52-byte rows, 156 bytes);
// q9_9: 32 in 20; a view, a copy into a custom type, a matrix product of one, an op the tables lack
const DOC = JSON.stringify({
  name: 'custom types',
  type_traits: [{ name: 'fp3', blck_size: 64, type_size: 26 }, { name: 'q9_9', blck_size: 32, type_size: 20 }],
  buffer_types: [{ name: 'host', alignment: 32 }, { name: 'gpu', alignment: 256 }],
  tensors: [
    { name: 'w', op: 'NONE', type: 'fp3', ne: [128, 3], flags: ['input'] },
    { name: 'x', op: 'NONE', type: 'f32', ne: [128, 5], flags: ['input'] },
    { name: 'y', op: 'MUL_MAT', type: 'f32', ne: [3, 5], src: [0, 1] },
    { name: 'q', op: 'CPY', type: 'q9_9', ne: [128, 5], src: [1, 3] },
    { name: 'qv', op: 'VIEW', type: 'q9_9', ne: [64, 5], nb: [20, 80, 400, 400], view_src: 3, view_offs: 40, src: [3] },
    { name: 'm', op: 'DSV9_MIX', type: 'fp3', ne: [64, 2], src: [4, 2] },
    { name: 'z', op: 'ADD', type: 'f32', ne: [3, 5], src: [2, 2], flags: ['output'] },
  ],
  nodes: [2, 3, 4, 5, 6], leafs: [0, 1], node_buffer_ids: [1, 0, 0, 1, 1], leaf_buffer_ids: [0, 0],
}, null, 2);

beforeEach(() => ui.loadPreset('test_reuse_and_free'));
afterEach(() => ui.flushText());

describe('a document with custom types in the UI', () => {
  it('imports and plans exactly as the CLI plans it', () => {
    const c = cli(DOC);
    expect(c.status).toBe(0);
    expect(ui.importGraph(DOC, 'types.json')).toBe(true);
    expect(ui.notice.value.kind).toBe('warning'); // the types the tables lack are named, as the CLI warns
    expect(ui.notice.value.message).toMatch(/type fp3 \(64 elements in 26 bytes per block/);
    expect(planDifferences(ui.plan.value, c.plan)).toEqual([]);
    // the sizes the views draw are the CLI's too (the UI computes them: graph-model.js tensorInfo)
    const m = ui.model.value;
    expect(m.info.nb[0].map(Number)).toEqual([26, 52, 156, 156]);
    expect(m.info.bytes[0]).toBe(156n);
    expect(m.info.bytes[3]).toBe(BigInt(4 * 5 * 20));
    c.plan.tensors.forEach((p, i) => { if (p && !p.view && p.size !== undefined) expect(m.byTensor[i].size).toBe(Number(p.size)); });
  });

  it('its graph text holds the types (@type lines) and reads back to the same document', () => {
    expect(ui.importGraph(DOC)).toBe(true);
    ui.flushText();
    const t = ui.text.value;
    expect(t).toContain('@type fp3 block=64 size=26\n@type q9_9 block=32 size=20\n');
    const back = parseGraphText(t);
    expect(back.errors).toBeUndefined();
    const a = g.normalize(back.doc);
    const b = g.normalize(DOC);
    expect(a.tensors).toEqual(b.tensors);
    expect(a.type_traits).toEqual(b.type_traits);
    expect([a.nodes, a.leafs, a.node_buffer_ids, a.leaf_buffer_ids]).toEqual([b.nodes, b.leafs, b.node_buffer_ids, b.leaf_buffer_ids]);
  });

  it('an edit of that text plans as the CLI plans the edited document', () => {
    expect(ui.importGraph(DOC)).toBe(true);
    ui.flushText();
    const edited = ui.text.value.replace('@type fp3 block=64 size=26', '@type fp3 block=32 size=26'); // twice the bytes
    expect(ui.replaceText(edited)).toBe(true);
    expect(ui.model.value.info.bytes[0]).toBe(312n);
    const c = cli(JSON.stringify(parseGraphText(edited).doc));
    expect(planDifferences(ui.plan.value, c.plan)).toEqual([]);
  });

  it('what the UI exports round-trips: the document, the text, a link', () => {
    expect(ui.importGraph(DOC)).toBe(true);
    const exported = `${JSON.stringify(ui.graph.value, null, 1)}\n`; // Header.jsx's Export → graph
    expect(planDifferences(cli(exported).plan, cli(DOC).plan)).toEqual([]);
    expect(ui.importGraph(exported)).toBe(true);
    expect(planDifferences(ui.plan.value, cli(DOC).plan)).toEqual([]);
    ui.flushText();
    expect(ui.replaceText(ui.text.value)).toBe(true); // what a link or the exported text opens
    expect(planDifferences(ui.plan.value, cli(DOC).plan)).toEqual([]);
    expect(graphToText(ui.graph.value)).toBe(ui.text.value);
  });
});

describe('type_traits of the tables\' own types (an exported graph lists every type it uses)', () => {
  it('go without saying: no @type line, and the preset loads and plans', () => {
    expect(g.preset('llama-tiny').type_traits.map((t) => t.name)).toContain('f32');
    expect(ui.loadPreset('llama-tiny')).toBe(true);
    expect(ui.textErrors.value).toEqual([]);
    expect(ui.text.value).not.toContain('@type');
    expect(planDifferences(ui.plan.value, cli(JSON.stringify(g.preset('llama-tiny'))).plan)).toEqual([]);
  });
});

describe('@type lines in graph text', () => {
  const base = (types, use = 'fp3') => `${types}\nw = input(${use}, 128, 3)\ny = scale(w)\noutput(y)\n`;
  it('a type may be used above its @type line, as a buffer type may', () => {
    const r = parseGraphText('w = input(fp3, 128)\noutput(w)\n@type fp3 block=64 size=26\n');
    expect(r.errors).toBeUndefined();
    expect(r.doc.type_traits).toEqual([{ name: 'fp3', blck_size: 64, type_size: 26 }]);
  });
  for (const [what, text, line, message] of [
    ['an undescribed type', base('', 'fp3'), 2, /first argument must be a type/],
    ['a type of the tables', base('@type f32 block=1 size=4'), 1, /f32 is one of ggml's types/],
    ['described twice', base('@type fp3 block=64 size=26\n@type fp3 block=64 size=26'), 2, /described twice/],
    ['no size', base('@type fp3 block=64'), 1, /give block= .* and size=/],
    ['a block of 0', base('@type fp3 block=0 size=26'), 1, /block: a whole number >= 1/],
    ['an unknown setting', base('@type fp3 block=64 bytes=26'), 1, /unknown type setting 'bytes'/],
  ]) {
    it(`${what}: an error at its line`, () => {
      const r = parseGraphText(text);
      expect(r.errors?.[0]).toEqual({ line, message: expect.stringMatching(message) });
    });
  }
  it('a block size past the C reader\'s limit: the CLI\'s message, at the @type line', () => {
    const t = `x = input(f32, 4)\n@type big block=2048 size=26\nw = input(big, 4096)\noutput(w)\n`;
    const r = parseGraphText(t);
    expect(r.errors).toBeUndefined();
    const c = cli(JSON.stringify(r.doc));
    expect(c.status).toBe(3);
    expect(ui.replaceText(t)).toBe(false);
    expect(ui.textErrors.value).toEqual([{ line: 2, message: `allocator: ${c.message}` }]);
    expect(c.message).toMatch(/^type_traits\[0\]\.blck_size: 2048 elements per block/);
  });
});
