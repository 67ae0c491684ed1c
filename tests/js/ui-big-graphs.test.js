// ui-big-graphs.test.js: big graphs stay interactive (issue 15). A big text is parsed by the
// text-parse worker's protocol (here a stand-in that parses in this thread, later, and hands its
// answer through structured cloning as postMessage does) and then read, planned and shown in
// steps; a big import is shown in steps; the editor's text of an import is written in slices. Each
// path must give what the one-task path gives: the same graph, plan (the CLI's), errors at the
// same lines, the same text; a newer text drops an older parse, and cancels it.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';

import * as ui from '../../web/src/state.js';
import { graphTextWriter, graphToTextLines, parseGraphText } from '../../web/src/core/graph-text.js';
import { packParse, unpackParse } from '../../web/src/core/text-parse-protocol.js';
import { createTextParser } from '../../web/src/core/text-parse-client.js';
import { cBadDocuments } from './c-bad-documents.js';
import { cliVerdict, GOLDEN_DIR, goldenNames, loadWasm } from './wasm-helpers.js';

const g = await loadWasm();
ui.galloc.value = g;

const cli = cliVerdict; // the CLI's verdict on document bytes (wasm-helpers.js)

/**
 * A worker stand-in: parses in this thread after `delay` ms, its answer structured-cloned with its
 * transfer list (as postMessage moves it). Counts its parses and terminations.
 */
function fakeWorkers(delay = 5) {
  const stats = { made: 0, parsed: 0, terminated: 0 };
  const make = () => {
    stats.made++;
    const w = {
      onmessage: null, onerror: null, dead: false,
      postMessage({ id, text }) {
        setTimeout(() => {
          if (w.dead) return;
          stats.parsed++;
          const [msg, transfer] = packParse(id, parseGraphText(text));
          w.onmessage?.({ data: structuredClone(msg, { transfer }) });
        }, delay);
      },
      terminate() { w.dead = true; stats.terminated++; },
    };
    return w;
  };
  return { make, stats };
}

const chainText = (n) => `y = input(f32, 4)\n${'y = scale(y)\n'.repeat(n)}output(y)\n`;
// a text with what TextMeta records: buffer assignments (@B), views, several arguments, $N, flags
const RICH = `@buffer host align=32
@buffer gpu align=64 max=1MiB
x = input(f32, 64, 8)
w = weight(f16, 64, 32) @1
m = mul_mat(w, x) @gpu
v = view_1d(m, 16, 32)
a = add(m, $3)
"odd name" = scale(a) @1 loss
output(a, "odd name")
`;

afterEach(() => {
  ui.flushText();
  ui.useTextParser(null);
  ui.useSteps(null);
});
beforeAll(() => ui.loadPreset('test_reuse_and_free'));

describe('the worker protocol: a parse result crosses whole', () => {
  for (const [what, t] of [['a rich text', RICH], ['a 3,000-line chain', chainText(3000)]]) {
    it(`${what}: the document (JSON) and every TextMeta field come back as parsed`, () => {
      const r = parseGraphText(t);
      expect(r.errors).toBeUndefined();
      const [msg, transfer] = packParse(7, r);
      const back = unpackParse(structuredClone(msg, { transfer }));
      expect(back.id).toBe(7);
      expect(JSON.parse(back.json)).toEqual(r.doc);
      expect(new TextDecoder().decode(back.bytes)).toBe(back.json);
      expect(back.meta.tensorLines).toEqual(r.meta.tensorLines);
      expect(back.meta.stmts).toEqual(r.meta.stmts);
      expect(back.meta.bufferLines).toEqual(r.meta.bufferLines);
      expect(back.meta.typeLines).toEqual(r.meta.typeLines);
    });
  }
  it('a text with errors: the errors as they are', () => {
    const r = parseGraphText('x = input(f32, 4)\ny = frobnicate(x)\nz = add(x, q)\n');
    const [msg] = packParse(1, r);
    expect(unpackParse(structuredClone(msg)).errors).toEqual(r.errors);
  });
});

describe('a big text through the worker: what the one-task path gives', () => {
  it('replaceText answers later, with the graph, meta and plan of the parse in this thread (the CLI\'s plan)', async () => {
    const t = chainText(20000);
    const sync = parseGraphText(t);
    const { make, stats } = fakeWorkers();
    ui.useTextParser(createTextParser(make), 1000);
    const answer = ui.replaceText(t);
    expect(answer).toBeInstanceOf(Promise);
    expect(ui.textParsing.value).toBe(true);
    expect(await answer).toBe(true);
    expect(stats.parsed).toBe(1);
    expect(ui.textParsing.value).toBe(false);
    expect(ui.graph.value).toEqual(JSON.parse(JSON.stringify(ui.graph.value))); // plain data
    expect(ui.graph.value.tensors).toEqual(sync.doc.tensors);
    expect(ui.meta.value.tensorLines).toEqual(sync.meta.tensorLines);
    expect(ui.meta.value.stmts).toEqual(sync.meta.stmts);
    expect(ui.plan.value).toEqual(cli(JSON.stringify(sync.doc)).plan);
    expect(ui.model.value.steps).toBe(20000);
    expect(ui.explanation.value).toEqual(ui.planned.value.explain());
  });

  it('the rich text: edits from other views work on the meta that came from the worker', async () => {
    const { make } = fakeWorkers();
    ui.useTextParser(createTextParser(make), 10);
    expect(await ui.replaceText(RICH)).toBe(true);
    const before = ui.plan.value;
    // assign "odd name" (tensor 5) to buffer type 0: the @1 on its line goes, as in the sync path
    const answer = ui.assignBuffer(5, 0);
    expect(await answer).toBe(true);
    expect(ui.text.value).toContain('"odd name" = scale(a) loss');
    expect(ui.plan.value).not.toEqual(before);
  });

  it('errors come at the lines the one-task parse gives them', async () => {
    const t = `${chainText(3000)}z = frobnicate(y)\nq = add(y, nothere)\n`;
    const sync = parseGraphText(t);
    const { make } = fakeWorkers();
    ui.useTextParser(createTextParser(make), 1000);
    const shown = ui.graph.value;
    expect(await ui.replaceText(t)).toBe(false);
    expect(ui.textErrors.value).toEqual(sync.errors);
    expect(ui.textErrors.value[0].line).toBe(3003);
    expect(ui.graph.value).toBe(shown); // the last good graph stays
  });

  it('an allocator refusal is placed at the tensor\'s line', async () => {
    // a view moved past its source's end by offs=: the C reader refuses it, at tensors[3001]
    const t = `${chainText(3000)}v = view_1d(y, 4, 0) offs=4096\n`;
    const sync = parseGraphText(t);
    expect(sync.errors).toBeUndefined();
    ui.useTextParser(null);
    expect(ui.replaceText(t)).toBe(false);
    const want = ui.textErrors.value;
    expect(want[0]).toEqual({ line: 3003, message: expect.stringMatching(/^allocator: tensors\[3001\]: /) });
    const { make } = fakeWorkers();
    ui.useTextParser(createTextParser(make), 1000);
    expect(await ui.replaceText(t)).toBe(false);
    expect(ui.textErrors.value).toEqual(want);
  });

  it('a newer text cancels the parse in flight (its worker terminated) and its answer is never shown', async () => {
    const { make, stats } = fakeWorkers(30);
    ui.useTextParser(createTextParser(make), 1000);
    const stale = ui.replaceText(chainText(5000));
    const newer = ui.replaceText(chainText(4000));
    expect(stats.terminated).toBe(1);
    expect(await stale).toBe(false);
    expect(await newer).toBe(true);
    expect(ui.model.value.steps).toBe(4000);
    // a small text (parsed in this thread) also cancels a big one in flight
    const stale2 = ui.replaceText(chainText(6000));
    expect(ui.replaceText(chainText(3))).toBe(true);
    expect(await stale2).toBe(false);
    await new Promise((r) => setTimeout(r, 60));
    expect(ui.model.value.steps).toBe(3);
    expect(stats.terminated).toBe(2);
  });

  it('a preset is planned with its name and lesson, in this thread, whatever the size of its text', () => {
    const { make, stats } = fakeWorkers();
    ui.useTextParser(createTextParser(make), 1000);
    expect(ui.loadPreset('llama-3.1-70b-c8192')).toBe(true);
    expect(ui.text.value.length).toBeGreaterThan(1000);
    expect(stats.made).toBe(0);
    expect(ui.presetName.value).toBe('llama-3.1-70b-c8192');
    expect(ui.plan.value).toEqual(cli(JSON.stringify(g.preset('llama-3.1-70b-c8192'))).plan);
  });

  it('typing cancels the parse in flight at once, not when its pause is over', async () => {
    const { make, stats } = fakeWorkers(30);
    ui.useTextParser(createTextParser(make), 1000);
    const stale = ui.replaceText(chainText(5000));
    ui.editText(chainText(7));
    expect(stats.terminated).toBe(1);
    expect(await stale).toBe(false);
    await new Promise((r) => setTimeout(r, 300));
    expect(ui.model.value.steps).toBe(7);
  });

  it('a big pasted text imports through the worker with the one-task import\'s verdicts; a refused one replaces nothing', async () => {
    const texts = [`${chainText(3000)}z = frobnicate(y)\n`, `# only comments\n${'#\n'.repeat(2000)}`, chainText(3000)];
    const { make } = fakeWorkers();
    for (const t of texts) {
      ui.useTextParser(null);
      expect(ui.loadPreset('test_reuse_and_free')).toBe(true);
      const want = { ok: ui.importGraph(t, 'the pasted graph'), notice: ui.notice.value, plan: ui.plan.value, text: ui.text.value };
      expect(ui.loadPreset('test_reuse_and_free')).toBe(true);
      const keep = { text: ui.text.value, plan: ui.plan.value };
      ui.useTextParser(createTextParser(make), 1000);
      const answer = ui.importGraph(t, 'the pasted graph');
      expect(answer).toBeInstanceOf(Promise);
      expect(await answer).toBe(want.ok);
      expect(ui.notice.value).toEqual(want.notice);
      if (want.ok) {
        expect(ui.plan.value).toEqual(want.plan);
        expect(ui.text.value).toBe(want.text);
        expect(ui.presetName.value).toBe(null);
      } else {
        expect(ui.text.value).toBe(keep.text);
        expect(ui.plan.value).toBe(keep.plan);
      }
    }
  });
});

describe('a big import in steps: what the one-task import gives', () => {
  const docBytes = (name) => readFileSync(path.join(GOLDEN_DIR, `${name}.graph.json`));
  it('golden documents: the same graph, plan (the CLI\'s) and text as the one-task import', async () => {
    for (const name of goldenNames().slice(0, 12)) {
      const bytes = new Uint8Array(docBytes(name));
      ui.useSteps(null);
      expect(ui.importGraph(bytes, name)).toBe(true);
      ui.flushText();
      const want = { graph: ui.graph.value, plan: ui.plan.value, text: ui.text.value, notice: ui.notice.value };
      ui.useSteps(0);
      const answer = ui.importGraph(bytes, name);
      expect(answer).toBeInstanceOf(Promise);
      expect(await answer).toBe(true);
      expect(ui.textPending.value).toBe(true);
      ui.flushText();
      expect(ui.graph.value).toEqual(want.graph);
      expect(ui.plan.value).toEqual(want.plan);
      expect(ui.plan.value).toEqual(cli(bytes).plan);
      expect(ui.text.value).toBe(want.text);
      expect(ui.notice.value).toEqual(want.notice);
      expect(ui.explanation.value).toEqual(ui.planned.value.explain());
    }
  });

  it('the C bad-input table in steps: the one-task import\'s verdict and message, and the graph on screen stays', async () => {
    const rows = cBadDocuments();
    expect(rows.length).toBeGreaterThanOrEqual(100);
    for (const row of rows) {
      ui.useSteps(null);
      expect(ui.loadPreset('test_reuse_and_free')).toBe(true);
      const okSync = ui.importGraph(row.bytes);
      ui.flushText();
      const want = { ok: okSync, notice: ui.notice.value };
      expect(ui.loadPreset('test_reuse_and_free')).toBe(true);
      const shown = ui.plan.value;
      ui.useSteps(0);
      const ok = await ui.importGraph(row.bytes);
      ui.flushText();
      expect({ text: row.text, ok }).toEqual({ text: row.text, ok: want.ok });
      expect({ text: row.text, notice: ui.notice.value }).toEqual({ text: row.text, notice: want.notice });
      if (!ok) expect(ui.plan.value).toBe(shown);
    }
  });

  it('an older import still in its steps is dropped by a newer one', async () => {
    ui.useSteps(0);
    const a = ui.importGraph(new Uint8Array(docBytes(goldenNames()[0])), 'a');
    const b = ui.importGraph(new Uint8Array(docBytes(goldenNames()[1])), 'b');
    expect(await a).toBe(false);
    expect(await b).toBe(true);
    expect(ui.notice.value.message).toMatch(/^imported b: /);
    expect(ui.plan.value).toEqual(cli(docBytes(goldenNames()[1])).plan);
  });
});

describe('the editor text of an import, written in slices', () => {
  const chainDoc = (n) => {
    const doc = { tensors: [{ name: 'y', op: 'NONE', type: 'f32', ne: [4], flags: ['input'] }], outputs: [n] };
    for (let i = 1; i <= n; i++) doc.tensors.push({ name: `y${i % 7}`, op: i % 3 ? 'SCALE' : 'CONT', type: 'f32', ne: [4], src: [i - 1] });
    return g.normalize(doc);
  };
  // a type the tables lack, used past the first slice: each slice must know it
  const customTyped = () => {
    const doc = { type_traits: [{ name: 'fp3', blck_size: 64, type_size: 26 }], tensors: [{ name: 'x', op: 'NONE', type: 'fp3', ne: [128, 2], flags: ['input'] }], outputs: [600] };
    for (let i = 1; i <= 600; i++) doc.tensors.push({ name: `v${i}`, op: 'VIEW', type: 'fp3', ne: [64], view_src: 0, view_offs: 26 * (i % 4), src: [0] });
    return g.normalize(doc);
  };
  it('slice by slice, the very text and lines written in one go', () => {
    const docs = [chainDoc(3000), customTyped(), ...goldenNames().slice(0, 20).map((n) => g.normalize(readFileSync(path.join(GOLDEN_DIR, `${n}.graph.json`), 'utf8')))];
    for (const doc of docs) {
      const whole = graphToTextLines(doc);
      const w = graphTextWriter(doc);
      let r = null;
      let calls = 0;
      while (!(r = w.write(0))) calls++;
      expect(r.text).toBe(whole.text);
      expect(r.tensorLines).toEqual(whole.tensorLines);
      expect(calls).toBe(Math.floor(doc.tensors.length / 256));
    }
  });

  it('an import\'s text is written over several tasks; flushText mid-way writes the rest', async () => {
    const doc = chainDoc(6000);
    const want = graphToTextLines(doc).text;
    expect(ui.importGraph(JSON.stringify(doc), 'chain')).toBe(true);
    expect(ui.textPending.value).toBe(true);
    await new Promise((r) => setTimeout(r, 40)); // some slices written, not all
    ui.flushText();
    expect(ui.textPending.value).toBe(false);
    expect(ui.text.value).toBe(want);
    // left alone, the slices finish by themselves
    expect(ui.importGraph(JSON.stringify(chainDoc(5000)), 'chain')).toBe(true);
    for (let k = 0; k < 200 && ui.textPending.value; k++) await new Promise((r) => setTimeout(r, 10));
    expect(ui.textPending.value).toBe(false);
    expect(ui.text.value).toBe(graphToTextLines(chainDoc(5000)).text);
  });
});

describe('edits made on a big document (rename, remove): its text written in slices, then planned', () => {
  it('renaming a buffer type and removing tensors give the one-task edit\'s text and plan; a newer text drops them', async () => {
    for (const sliced of [false, true]) {
      ui.useSteps(null);
      ui.useTextParser(null);
      expect(ui.replaceText(chainText(6000))).toBe(true);
      const want = {};
      expect(ui.renameBuffer(0, 'cpu')).toBe(true);
      want.renamed = { text: ui.text.value, plan: ui.plan.value };
      ui.select(6000);
      expect(ui.removeTensor(6000)).toBe(true);
      want.removed = { text: ui.text.value, plan: ui.plan.value, selected: ui.selected.value };
      if (!sliced) continue;
      const { make } = fakeWorkers();
      ui.useSteps(0);
      ui.useTextParser(createTextParser(make), 1000);
      expect(await ui.replaceText(chainText(6000))).toBe(true);
      const renamed = ui.renameBuffer(0, 'cpu');
      expect(renamed).toBeInstanceOf(Promise);
      expect(await renamed).toBe(true);
      expect(ui.text.value).toBe(want.renamed.text);
      expect(ui.plan.value).toEqual(want.renamed.plan);
      ui.select(6000);
      const removed = ui.removeTensor(6000);
      expect(ui.selected.value).toBe(6000); // until the new graph is there
      expect(await removed).toBe(true);
      expect(ui.text.value).toBe(want.removed.text);
      expect(ui.plan.value).toEqual(want.removed.plan);
      expect(ui.selected.value).toBe(want.removed.selected);
      // an edit still being written is dropped by a newer text
      const stale = ui.renameBuffer(0, 'gpu');
      expect(ui.replaceText(chainText(5))).toBe(true);
      expect(await stale).toBe(false);
      await new Promise((r) => setTimeout(r, 50));
      expect(ui.model.value.steps).toBe(5);
      expect(ui.graph.value.buffer_types[0].name).toBe('host');
    }
  });
});
