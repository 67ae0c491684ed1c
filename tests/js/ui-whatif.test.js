// ui-whatif.test.js: the What-if panel's pure logic: capacities from file names and typed
// text, the panel's rows, what-if plans as timeline data (graph items with in-place chains
// merged, CSV rows over [lower, upper)), the worker's message handling and the promise runner.
import { describe, it, expect, beforeAll } from 'vitest';
import { readFileSync } from 'node:fs';
import { loadGalloc } from '../../web/src/core/galloc.js';
import { normalizeGraph } from '../../web/src/core/graph-model.js';
import { buildModel } from '../../web/src/core/plan-model.js';
import { stepState } from '../../web/src/core/steps.js';
import { timelineLayout, hitTest, rectBox, IDENTITY_X, IDENTITY_Y } from '../../web/src/core/timeline-layout.js';
import { timelineSvg } from '../../web/src/core/timeline-svg.js';
import { capacityFromFileName, parseCapacity, csvCapacity } from '../../web/src/core/whatif-csv.js';
import { whatifRows, whatifSummary, graphWhatifSource, csvWhatifSource, ggmlSource, itemRects, PLANNERS } from '../../web/src/core/whatif-model.js';
import { answerWhatif } from '../../web/src/core/whatif-protocol.js';
import { createWhatifRunner } from '../../web/src/core/whatif-client.js';

const CSV_A = readFileSync(new URL('../fixtures/minimalloc/A.1048576.csv', import.meta.url), 'utf8');
let g;
beforeAll(async () => { g = await loadGalloc(); });

function modelOf(doc) {
  const d = normalizeGraph(doc);
  return buildModel(d, g.plan(d));
}

describe('CSV capacities', () => {
  it('reads MiniMalloc file names as `galloc compare` does', () => {
    expect(capacityFromFileName('A.1048576.csv')).toBe(1048576n);
    expect(capacityFromFileName('/work/shared/bench/minimalloc/E.1048576.csv')).toBe(1048576n);
    expect(capacityFromFileName('C:\\data\\B.2097152.csv')).toBe(2097152n);
    expect(capacityFromFileName('x.y.123456789012345678.csv')).toBe(123456789012345678n);
    for (const none of ['A.csv', 'A.1048576.txt', '1048576.csv', 'A.0.csv', 'A-1048576.csv', 'A.12ab.csv', 'A.1234567890123456789.csv', 'A.1048576.CSV', '']) {
      expect(capacityFromFileName(none), none).toBe(null);
    }
  });

  it('parses typed capacities, and the typed one wins over the file name', () => {
    expect(parseCapacity('1048576')).toBe(1048576n);
    expect(parseCapacity('1 MiB')).toBe(1048576n);
    expect(parseCapacity('')).toBe(null);
    expect(parseCapacity('none')).toBe(null);
    expect(parseCapacity('0')).toBe(null);
    expect(() => parseCapacity('12 bananas')).toThrow(/unknown unit/);
    expect(() => parseCapacity('-5')).toThrow(/not a size/);
    expect(csvCapacity('', 'A.1048576.csv')).toEqual({ capacity: 1048576n, from: 'file name' });
    expect(csvCapacity('2 MiB', 'A.1048576.csv')).toEqual({ capacity: 2097152n, from: 'input' });
    expect(csvCapacity('', 'pasted CSV')).toEqual({ capacity: null, from: null });
  });
});

describe('the panel\'s rows', () => {
  it('bytes and % above the bound, best, proof, fit to the capacity', () => {
    const r = g.whatifCsv(CSV_A, { capacity: 1048576, budgetMs: 20000 });
    const rows = whatifRows(r);
    expect(rows.map((x) => x.name)).toEqual(PLANNERS);
    for (const row of rows) {
      expect(row.total).toBe(BigInt(r.planners.find((p) => p.name === row.name).total));
      expect(row.above).toBe(row.total - 1048576n);
      expect(row.percent).toBeCloseTo((100 * Number(row.above)) / 1048576, 3);
      expect(row.fits).toBe(row.total <= 1048576n);
    }
    const exact = rows[3];
    expect(exact).toMatchObject({ best: true, proved: true, fits: true, above: 0n, percent: 0 });
    const s = whatifSummary(r);
    expect(s).toMatchObject({ lowerBound: 1048576n, best: 'exact', bestTotal: 1048576n, capacity: 1048576n });
    expect(s.saved).toBe(s.ggml - 1048576n);
  });

  it('keeps byte counts past 2^53 exact', () => {
    const huge = '9007199254740993'; // 2^53 + 1
    // as the library writes it: past 2^53 as decimal strings; above the bound computed in C
    const plan = (name, total, above) => ({ name, valid: true, checked: true, total, above_bound: above, above_bound_percent: above === 0 ? 0 : 1.1e-14,
      chunk_sizes: [total], time_us: 1500, proved_optimal: name === 'exact', bound: total, nodes: 3, note: '', chunks: [], offsets: [] });
    const r = { lower_bound: '9007199254740992', capacity: null, best: 'exact', planners: [plan('ggml', huge, 1), plan('greedy-by-size', huge, 1), plan('greedy-by-breadth', huge, 1), plan('exact', '9007199254740992', 0)] };
    const rows = whatifRows(r);
    expect(rows[0].above).toBe(1n);
    expect(rows[0].percent).toBe(1.1e-14);
    expect(rows[3].above).toBe(0n);
    expect(rows[0].timeMs).toBe(1.5);
    expect(rows[0].fits).toBe(null);
    expect(whatifSummary(r).saved).toBe(1n);
  });
});

describe('graph what-if plans as timeline data', () => {
  let m;
  let r;
  beforeAll(() => {
    m = modelOf(g.preset('llama-tiny'));
    r = g.whatif(m.doc, { budgetMs: 500 });
  });

  it('one rectangle per item, at its chunk and offset, indexed by the chain\'s first tensor', () => {
    for (const name of PLANNERS) {
      const src = graphWhatifSource(m, r, name);
      const p = r.planners.find((x) => x.name === name);
      expect(src.rects).toHaveLength(r.items.length);
      src.rects.forEach((rect, k) => {
        expect(rect).toMatchObject({ i: r.items[k].id, item: k, buffer: 0, chunk: p.chunks[k], offset: p.offsets[k], size: r.items[k].size, view: false });
      });
      expect(src.buffers).toHaveLength(1);
      expect(src.buffers[0].size).toBe(p.total);
      expect(src.buffers[0].chunkSizes).toEqual(p.chunk_sizes);
      expect(src).toMatchObject({ kind: 'whatif', planner: name, tensors: true, stepped: true, steps: m.steps });
    }
  });

  it('ggml\'s items sit where the plan put their first tensors', () => {
    const src = graphWhatifSource(m, r, 'ggml');
    for (const rect of src.rects) {
      expect(rect.chunk).toBe(m.byTensor[rect.i].chunk);
      expect(rect.offset).toBe(m.byTensor[rect.i].offset);
    }
  });

  it('an in-place chain is one item covering its members\' merged lifetime', () => {
    const src = graphWhatifSource(m, r, 'exact');
    let chains = 0;
    r.tensor_item.forEach((k, t) => {
      if (k < 0) { expect(src.byTensor[t]).toBe(null); return; }
      const rect = src.byTensor[t];
      expect(rect.item).toBe(k);
      const own = m.byTensor[t];
      expect(own.view).toBe(false);
      expect(rect.first).toBeLessThanOrEqual(own.first);
      expect(rect.last).toBeGreaterThanOrEqual(own.last);
      if (rect.i !== t) {
        chains++;
        expect(own.how).toBe('inplace');
      }
    });
    expect(chains).toBeGreaterThan(0); // llama-tiny has in-place chains
    expect(src.facts(r.items.find((it) => it.tensors > 1).id).detail).toMatch(/^in-place chain of \d+ tensors: /);
  });

  it('the live bytes at each step peak at the lower bound, and never overlap', () => {
    const src = graphWhatifSource(m, r, 'exact');
    let peak = 0;
    for (let s = -1; s < src.steps; s++) {
      const st = stepState(src, s);
      peak = Math.max(peak, st.liveBytes[0]);
      const spans = st.live.map((i) => src.byTensor[i]).filter((x, k, a) => a.indexOf(x) === k);
      for (const a of spans) for (const b of spans) {
        if (a !== b && a.chunk === b.chunk) expect(a.offset + a.size <= b.offset || b.offset + b.size <= a.offset).toBe(true);
      }
    }
    expect(peak).toBe(r.lower_bound);
  });

  it('lays out as one section of the plan\'s chunks; a click on a rectangle hits its tensor', () => {
    const src = graphWhatifSource(m, r, 'greedy-by-size');
    const L = timelineLayout(src, { width: 900 });
    expect(L.sections).toHaveLength(1);
    expect(L.lanes).toHaveLength(src.buffers[0].chunkSizes.length);
    const lane = L.lanes[0];
    const rect = lane.rects.reduce((a, b) => (b.size * (b.last - b.first + 1) > a.size * (a.last - a.first + 1) ? b : a));
    const box = rectBox(L, lane, rect, IDENTITY_X, IDENTITY_Y);
    expect(hitTest(L, IDENTITY_X, [], box.x + box.w / 2, box.y + box.h / 2)).toBe(rect.i);
  });

  it('the ggml source is the model itself, with what the timeline asks of any source', () => {
    const src = ggmlSource(m);
    expect(src.rects).toBe(m.rects);
    expect(src).toMatchObject({ kind: 'ggml', tensors: true, stepped: true });
    expect(src.label(0)).toBe(m.doc.tensors[0].name);
  });

  it('no source for a planner without a plan', () => {
    const broken = { ...r, planners: r.planners.map((p) => (p.name === 'exact' ? { ...p, valid: false } : p)) };
    expect(graphWhatifSource(m, broken, 'exact')).toBe(null);
    expect(graphWhatifSource(m, r, 'no-such-planner')).toBe(null);
  });
});

describe('CSV problems as timeline data', () => {
  it('a rectangle per row over [lower, upper), the capacity on the lane', () => {
    const r = g.whatifCsv(CSV_A, { capacity: 1048576, budgetMs: 0 });
    const rows = CSV_A.trim().split('\n').slice(1).map((l) => l.split(',').map(Number));
    const src = csvWhatifSource(r, 'greedy-by-size', { name: 'A.1048576.csv' });
    expect(src).toMatchObject({ kind: 'csv', tensors: false, stepped: false });
    expect(src.rects).toHaveLength(154);
    const origin = Math.min(...rows.map((x) => x[1]));
    src.rects.forEach((rect, k) => {
      expect(rect.i).toBe(k);
      expect(rect.first + origin).toBe(rows[k][1]);
      expect(rect.last + origin + 1).toBe(rows[k][2]);
      expect(rect.size).toBe(rows[k][3]);
    });
    expect(src.steps).toBe(Math.max(...rows.map((x) => x[2])) - origin);
    const L = timelineLayout(src, { width: 1000 });
    expect(L.lanes).toHaveLength(1);
    expect(L.lanes[0].rects).toHaveLength(154);
    expect(L.lanes[0].capacity).toBe(1048576);
    const rect = src.rects[0];
    const box = rectBox(L, L.lanes[0], rect, IDENTITY_X, IDENTITY_Y);
    expect(hitTest(L, IDENTITY_X, [], box.x + box.w / 2, box.y + box.h / 2)).toBe(0);
    expect(src.facts(0)).toMatchObject({ name: 'row 0', where: `chunk 0 · offset ${rect.offset} · [${rect.offset}, ${rect.offset + rect.size})`, steps: `live over [${rows[0][1]}, ${rows[0][2]})` });
  });

  it('times start at the earliest lower', () => {
    const r = g.whatifCsv('0,100,103,8\n1,101,102,4\n', { budgetMs: 0 });
    const src = csvWhatifSource(r, 'exact', { name: 'x' });
    expect(src.rects.map((x) => [x.first, x.last])).toEqual([[0, 2], [1, 1]]);
    expect(src.steps).toBe(3);
  });

  it('exports as SVG with the names escaped, never markup', () => {
    const r = g.whatifCsv('0,0,2,8\n1,1,3,8\n', { capacity: 16, budgetMs: 0 });
    const src = csvWhatifSource(r, 'exact', { name: '<b>evil</b>.16.csv' });
    const L = timelineLayout(src, { width: 600 });
    const svg = timelineSvg(L, src, { zx: IDENTITY_X, zys: [], title: src.title });
    expect(svg).toContain('&lt;b&gt;evil&lt;/b&gt;.16.csv');
    expect(svg).not.toContain('<b>');
    expect(svg).toContain('<title>row 1</title>');
  });

  it('itemRects shifts times by the origin', () => {
    const r = g.whatifCsv('0,10,12,8\n', { budgetMs: 0 });
    expect(itemRects(r, r.planners[0], 10)[0]).toMatchObject({ first: 0, last: 1, end: 1, padded: 8, heir: -1 });
  });
});

describe('the worker\'s messages', () => {
  it('answers requests, and errors as answers', () => {
    const ok = answerWhatif(g, { id: 3, kind: 'csv', text: '0,0,2,8\n', capacity: '8', budgetMs: 0 });
    expect(ok).toMatchObject({ id: 3, ok: true });
    expect(ok.result.lower_bound).toBe(8);
    expect(ok.ms).toBeGreaterThanOrEqual(0);
    const graph = answerWhatif(g, { id: 4, kind: 'graph', graph: g.presetText('llama-tiny'), bufferType: 0, budgetMs: 0 });
    expect(graph.ok && graph.result.items.length).toBe(35);
    expect(answerWhatif(g, { id: 5, kind: 'csv', text: '0,2,1,8', budgetMs: 0 })).toEqual({ id: 5, ok: false, error: { message: 'line 1: upper 1 <= lower 2', code: 'invalid-input' } });
    expect(answerWhatif(g, { id: 6, kind: 'what' })).toMatchObject({ id: 6, ok: false, error: { code: 'bad-argument' } });
  });
});

/** a worker that answers in a later task, through the real module; counts terminations */
function fakeWorkers() {
  const made = [];
  const make = () => {
    const w = {
      onmessage: null, onerror: null, terminated: false, posted: [],
      postMessage(req) {
        w.posted.push(req);
        setTimeout(() => { if (!w.terminated) w.onmessage?.({ data: answerWhatif(g, req) }); }, 5);
      },
      terminate() { w.terminated = true; },
    };
    made.push(w);
    return w;
  };
  return { made, make };
}

describe('the runner', () => {
  it('resolves with the result and the worker\'s time; reuses its worker', async () => {
    const f = fakeWorkers();
    const run = createWhatifRunner(f.make);
    const a = await run.run({ kind: 'csv', text: '0,0,2,8\n1,1,3,8\n', budgetMs: 0 });
    expect(a.result.lower_bound).toBe(16);
    const b = await run.run({ kind: 'graph', graph: g.presetText('test_reuse_and_free'), budgetMs: 0 });
    expect(b.result.items.length).toBeGreaterThan(0);
    expect(f.made).toHaveLength(1);
    expect(run.busy).toBe(false);
  });

  it('rejects with the library\'s error and code', async () => {
    const run = createWhatifRunner(fakeWorkers().make);
    await expect(run.run({ kind: 'csv', text: 'x', budgetMs: 0 })).rejects.toMatchObject({ code: 'invalid-input', message: expect.stringMatching(/^line 1: /) });
  });

  it('a new run cancels the running one (terminating its worker); cancel() stops at once', async () => {
    const f = fakeWorkers();
    const run = createWhatifRunner(f.make);
    const first = run.run({ kind: 'csv', text: '0,0,2,8\n', budgetMs: 0 });
    const second = run.run({ kind: 'csv', text: '0,0,2,16\n', budgetMs: 0 });
    await expect(first).rejects.toMatchObject({ code: 'cancelled' });
    expect((await second).result.lower_bound).toBe(16);
    expect(f.made).toHaveLength(2);
    expect(f.made[0].terminated).toBe(true);

    const third = run.run({ kind: 'csv', text: '0,0,2,8\n', budgetMs: 0 });
    expect(run.busy).toBe(true);
    expect(run.cancel()).toBe(true);
    await expect(third).rejects.toMatchObject({ code: 'cancelled' });
    expect(run.cancel()).toBe(false);
    expect(run.busy).toBe(false);
    expect((await run.run({ kind: 'csv', text: '0,0,2,4\n', budgetMs: 0 })).result.lower_bound).toBe(4);
  });

  it('a worker that fails rejects the run; the next run gets a new worker', async () => {
    const made = [];
    const run = createWhatifRunner(() => {
      const w = { onmessage: null, onerror: null, postMessage() { setTimeout(() => w.onerror?.({ message: 'boom' }), 1); }, terminate() {} };
      made.push(w);
      return w;
    });
    await expect(run.run({ kind: 'csv', text: '', budgetMs: 0 })).rejects.toMatchObject({ code: 'module-aborted', message: expect.stringContaining('boom') });
    await expect(run.run({ kind: 'csv', text: '', budgetMs: 0 })).rejects.toThrow();
    expect(made).toHaveLength(2);
  });
});
