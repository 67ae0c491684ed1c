// ui-hostile-text.test.js: the UI keeps the user's work and says what happened (issue 15):
// damaged share links show an error and a graph, an empty import replaces nothing, and error
// messages for huge texts stay cheap (only the first few carry a spelling suggestion, only the
// first MAX_ERRORS are listed).

import { beforeEach, describe, expect, it } from 'vitest';
import { compressToEncodedURIComponent } from 'lz-string';

import * as ui from '../../web/src/state.js';
import { encodeShare } from '../../web/src/core/share.js';
import { MAX_ERRORS, MAX_SUGGESTIONS, parseGraphText } from '../../web/src/core/graph-text.js';
import { loadWasm } from './wasm-helpers.js';

ui.galloc.value = await loadWasm();

/** open the page at a URL fragment: start() as main.jsx calls it, from a blank state */
async function open(hash) {
  globalThis.location = { hash };
  ui.graph.value = null;
  ui.notice.value = null;
  ui.presetName.value = null;
  await ui.start();
}

// a deterministic 2 MB of URI-safe noise
function noise(n) {
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+-$';
  let x = 12345;
  let s = '';
  for (let i = 0; i < n; i++) { x = (x * 1103515245 + 12345) >>> 0; s += abc[x >>> 26]; }
  return s;
}

const good = encodeShare({ v: 1, t: 'x = input(f32, 4)\ny = scale(x)\noutput(y)\n' });
const DAMAGED = [
  ['#g= (empty)', '#g='],
  ['#g=!!!', '#g=!!!'],
  ['truncated', `#${good.slice(0, Math.floor(good.length / 2))}`],
  ['version 2', `#${encodeShare({ v: 2, t: 'x = input(f32, 4)\n' })}`, /version 2/],
  ['2 MB of noise', `#g=${noise(2 << 20)}`],
  ['a non-array field (b)', `#g=${compressToEncodedURIComponent(JSON.stringify({ v: 1, p: 'test_reuse_and_free', b: 'x' }))}`],
  ['a non-string text (t)', `#g=${compressToEncodedURIComponent(JSON.stringify({ v: 1, t: 5 }))}`],
];

describe('damaged share links: an error that stays, and the default graph', () => {
  for (const [what, hash, says = /link is damaged/] of DAMAGED) {
    it(what, async () => {
      await open(hash);
      expect(ui.notice.value?.kind).toBe('error');
      expect(ui.notice.value.message).toMatch(says);
      expect(ui.graph.value).not.toBeNull(); // the default preset is on screen
      expect(ui.notice.value.message).toContain(ui.presetName.value); // and the notice says which
    });
  }
  it('a link naming an unknown preset: the error, the default graph, and says so', async () => {
    await open(`#${encodeShare({ v: 1, p: 'no-such-preset', b: [] })}`);
    expect(ui.notice.value?.kind).toBe('error');
    expect(ui.notice.value.message).toContain('no-such-preset');
    expect(ui.graph.value).not.toBeNull();
    expect(ui.presetName.value).not.toBe('no-such-preset');
    expect(ui.notice.value.message).toContain(`showing ${ui.presetName.value} instead`);
  });
  it('a good link opens its graph with no error', async () => {
    await open(`#${good}`);
    expect(ui.notice.value).toBeNull();
    expect(ui.graph.value.tensors.map((t) => t.name)).toEqual(['x', 'y']);
  });
});

describe('an import holding no graph replaces nothing', () => {
  beforeEach(() => ui.loadPreset('test_reuse_and_free'));
  for (const [what, input] of [['an empty box', ''], ['white space', ' \n\t \r\n'], ['only comments', '# nothing here\n\n# still nothing\n']]) {
    it(what, () => {
      const before = ui.graph.value;
      const textBefore = ui.text.value;
      expect(before.tensors.length).toBeGreaterThan(0);
      expect(ui.importGraph(input, 'the pasted graph')).toBe(false);
      expect(ui.notice.value.kind).toBe('error');
      expect(ui.notice.value.message).toMatch(/nothing to import/);
      expect(ui.graph.value).toBe(before);
      expect(ui.text.value).toBe(textBefore);
    });
  }
});

describe('huge texts: messages stay cheap', () => {
  const lines = (n, f) => Array.from({ length: n }, (_, i) => f(i)).join('\n');
  it(`only the first ${MAX_SUGGESTIONS} unknown ops get a spelling suggestion`, () => {
    const r = parseGraphText(`x = input(f32, 4)\n${lines(2000, (i) => `y${i} = ad(x)`)}`);
    const all = r.errors.filter((e) => /unknown op 'ad'/.test(e.message));
    expect(all.length).toBeGreaterThan(MAX_SUGGESTIONS);
    const suggested = r.errors.filter((e) => e.message.includes('did you mean add?'));
    expect(suggested.length).toBe(MAX_SUGGESTIONS);
    expect(suggested.map((e) => e.line)).toEqual(all.slice(0, MAX_SUGGESTIONS).map((e) => e.line)); // the first ones
  });
  it(`only the first ${MAX_ERRORS} errors are listed, then how many more`, () => {
    const r = parseGraphText(`x = input(f32, 4)\n${lines(5000, (i) => `y${i} = frobnicate(x)`)}`);
    expect(r.errors.length).toBe(MAX_ERRORS + 1);
    expect(r.errors[0].line).toBe(2);
    expect(r.errors[MAX_ERRORS - 1].line).toBe(MAX_ERRORS + 1);
    expect(r.errors[MAX_ERRORS].message).toBe(`${5000 - MAX_ERRORS} more errors (only the first ${MAX_ERRORS} are listed)`);
  });
});

describe('a ggml_cast tensor (a CPY whose src[1] is itself) in the views', () => {
  it('the graph view lays it out, with its edge from the cast source and none to itself', async () => {
    const { layoutDag } = await import('../../web/src/core/dag-layout.js');
    expect(ui.importGraph('{"tensors": [{"name": "a", "op": "NONE", "type": "f32", "ne": [8], "flags": ["input"]}, {"name": "c", "op": "CPY", "type": "f16", "ne": [8], "src": [0, 1]}, {"name": "s", "op": "SCALE", "type": "f16", "ne": [8], "src": [1], "flags": ["output"]}], "outputs": [2]}')).toBe(true);
    const d = ui.graph.value;
    expect(d.tensors[1].src).toEqual([0, 1]);
    const lay = layoutDag(d, [0, 1, 2]);
    expect(lay.nodes).toHaveLength(3);
    expect(lay.links.map((l) => [l.from, l.to]).sort()).toEqual([[0, 1], [1, 2]]);
  });
});
