// wasm-whatif.test.js: the what-if analysis through the WebAssembly module (galloc.whatif,
// galloc.whatifCsv). On the 13 scenario presets and golden graphs: every planner's plan passes
// the library's checker and an independent one, the best is never worse than ggml, the lower
// bound is below every total, and the totals equal the native CLI's `plan --compare` table.
// CSV problems: a table of bad inputs (each names its line; the module keeps working), a small
// problem with a known optimum, MiniMalloc's problem A solved at its capacity; no heap leak.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { ROOT, goldenText, loadWasm, requireCli } from './wasm-helpers.js';
import { bruteForceOptimum, cliCompare, planViolations, random } from './whatif-helpers.js';

const galloc = await loadWasm();
requireCli();

const SCENARIOS = [
  'test_max_size_too_many_tensors', 'test_max_size_tensor_too_large', 'test_tensor_larger_than_max_size', 'test_not_enough_chunks',
  'test_fill_leftover_space', 'test_view_inplace', 'test_reuse_and_free', 'test_merge_free_block_32', 'test_merge_free_block_SIZE_MAX',
  'test_prefer_already_allocated_memory', 'test_multiple_buffer_types', 'test_buffer_size_zero', 'realloc_a', 'realloc_b',
];
const GOLDEN = ['llama-tiny', 'llama-tiny-2buft', 'llama-tiny-max4k', 'llama-tiny-setrows', 'llama-7b-decode', 'rand-n100-s0-a32-2buft',
  'rand-n100-s1-a32-chunked', 'rand-n1000-s0-a8-chunked'];
const PLANNERS = ['ggml', 'greedy-by-size', 'greedy-by-breadth', 'exact'];
const CSV_A = readFileSync(path.join(ROOT, 'tests/fixtures/minimalloc/A.1048576.csv'), 'utf8');

/** every buffer type of a graph that owns its allocator (the CLI prints one table for each) */
function allocators(graphText) {
  const doc = galloc.normalize(graphText);
  const plan = galloc.plan(graphText);
  return doc.buffer_types.map((_b, k) => k).filter((k) => plan.buffers[k].shared_with === undefined || plan.buffers[k].shared_with === null);
}

/**
 * ggml's own plan may fail the what-if checker in one known case (galloc-whatif.h): an in-place
 * chain whose members shrink, where ggml reuses the tail that the merged item keeps.
 */
function ggmlMayFail(r) {
  return r.n_shrinking > 0;
}

/** the invariants of one result, and its totals against the CLI's table for that buffer type */
function checkResult(r, cli, plan, b) {
  expect(r.format).toBe('galloc-whatif');
  expect(r.buffer_type).toBe(b);
  expect(r.planners.map((p) => p.name)).toEqual(PLANNERS);
  const lower = BigInt(r.lower_bound);
  const totals = Object.fromEntries(r.planners.map((p) => [p.name, BigInt(p.total)]));
  for (const p of r.planners) {
    expect(p.valid, `${p.name} has a plan`).toBe(true);
    if (p.name !== 'ggml' || !ggmlMayFail(r)) expect(p.checked, `${p.name} passes the checker`).toBe(true);
    if (p.checked) expect(planViolations(r, p), p.name).toEqual([]);
    expect(lower <= BigInt(p.total), `lower bound ${lower} <= ${p.name} ${p.total}`).toBe(true);
    expect(p.chunks).toHaveLength(r.items.length);
  }
  const best = r.planners.find((p) => p.name === r.best);
  expect(BigInt(best.total) <= totals.ggml).toBe(true);
  expect(totals.exact <= totals['greedy-by-size'] && totals.exact <= totals['greedy-by-breadth']).toBe(true);
  // ggml's total is the plan's, and its lower bound the plan's peak when no chain shrinks
  expect(totals.ggml).toBe(BigInt(plan.buffers[b].size));
  if (r.n_shrinking === 0) expect(lower).toBe(BigInt(plan.buffers[b].peak_live));
  // the CLI, with the same budget 0 (no search: every number is deterministic)
  expect(r.items.length).toBe(cli.items);
  expect(lower).toBe(cli.lowerBound);
  for (const name of PLANNERS) expect(totals[name], `${name} total as the CLI's`).toBe(cli.totals[name]);
  // every tensor of an item is in this allocator, and every item has its first tensor
  r.items.forEach((it, k) => expect(r.tensor_item[it.id]).toBe(k));
}

describe('what-if on graphs', () => {
  const cases = [...SCENARIOS.map((n) => ['preset', n]), ...GOLDEN.map((n) => ['golden', n])];
  it.each(cases)('%s %s: valid plans, best <= ggml, bound <= totals, totals as the CLI', (kind, name) => {
    const text = kind === 'preset' ? galloc.presetText(name) : goldenText(name, 'graph');
    const plan = galloc.plan(text);
    const cli = cliCompare(text, 0);
    const owners = allocators(text);
    expect(cli.map((c) => c.buffer)).toEqual(owners);
    for (const [k, b] of owners.entries()) {
      const r = galloc.whatif(text, { bufferType: b, budgetMs: 0 });
      checkResult(r, cli[k], plan, b);
      // with a budget the exact search only gets better, and stays valid
      const s = galloc.whatif(text, { bufferType: b, budgetMs: 150 });
      const exact = s.planners[3];
      expect(exact.checked).toBe(true);
      expect(BigInt(exact.total) <= BigInt(r.planners[3].total)).toBe(true);
      expect(BigInt(exact.bound) <= BigInt(exact.total)).toBe(true);
      if (exact.proved_optimal) expect(exact.bound).toBe(exact.total);
    }
  });

  it('a buffer type listed twice shares its allocator, and gets that allocator\'s analysis', () => {
    const doc = galloc.preset('llama-tiny');
    doc.buffer_types = [doc.buffer_types[0], { ...doc.buffer_types[0] }]; // the same name: one allocator
    const plan = galloc.plan(doc);
    expect(plan.buffers[1].shared_with).toBe(0);
    const a = galloc.whatif(doc, { bufferType: 0, budgetMs: 0 });
    const b = galloc.whatif(doc, { bufferType: 1, budgetMs: 0 });
    expect(b.buffer_type).toBe(0);
    expect(b.planners.map((p) => p.total)).toEqual(a.planners.map((p) => p.total));
  });

  it('bad arguments and documents are errors with a code; the module keeps working', () => {
    const text = galloc.presetText('llama-tiny');
    const bad = [
      [() => galloc.whatif(text, { bufferType: 5 }), 'bad-argument', /^buffer type 5 out of range \(1 buffer types\)$/],
      [() => galloc.whatif(text, { bufferType: -1 }), 'bad-argument', /bufferType/],
      [() => galloc.whatif(text, { budgetMs: -1 }), 'bad-argument', /budgetMs/],
      [() => galloc.whatif(text, { budgetMs: 1.5 }), 'bad-argument', /budgetMs/],
      [() => galloc.whatif(text, { budgetMs: 1e9 }), 'bad-argument', /budgetMs/],
      [() => galloc.whatif('{"format": ', {}), 'invalid-input', /^line 1, column/],
      [() => galloc.whatif({ tensors: [{ name: 'a', op: 'ADD', type: 'f32', ne: [4], src: [7] }], outputs: [0] }), 'invalid-input', /^tensors\[0\]\.src\[0\]/],
      [() => galloc.whatifCsv('0,1,2,3', { capacity: -1 }), 'bad-argument', /capacity/],
      [() => galloc.whatifCsv('0,1,2,3', { capacity: 2 ** 60 }), 'bad-argument', /capacity/],
      [() => galloc.whatifCsv('0,1,2,3', { capacity: 1n << 64n }), 'bad-argument', /capacity/],
      [() => galloc.whatifCsv('0,1,2,3', { capacity: '12 bytes' }), 'bad-argument', /capacity/],
    ];
    for (const [fn, code, message] of bad) {
      let err = null;
      try { fn(); } catch (e) { err = e; }
      expect(err, String(fn)).toBeInstanceOf(Error);
      expect(err.code).toBe(code);
      expect(err.message).toMatch(message);
      expect(galloc.whatif(text, { budgetMs: 0 }).best).toBe('greedy-by-size');
    }
  });
});

// [case, CSV text, the message]
const BAD_CSV = [
  ['upper before lower', 'id,lower,upper,size\n0,5,3,10\n', /^line 2: upper 3 <= lower 5$/],
  ['upper equal to lower', '0,4,4,10', /^line 1: upper 4 <= lower 4$/],
  ['three fields', '0,1,2\n', /^line 1: expected 4 fields \(id,lower,upper,size\), found 3$/],
  ['five fields', '0,1,2,3,4\n', /^line 1: expected 4 fields .*found more than 4$/],
  ['negative lower', '0,-1,2,3', /^line 1: lower '-1' is not an integer in \[0, 2\^62\]$/],
  ['word for upper', '0,1,x,3', /^line 1: upper 'x' is not an integer/],
  ['empty size', '0,1,2,', /^line 1: size '' is not an integer in \[0, 2\^40\]$/],
  ['size past 2^40', '0,1,2,1099511627777', /^line 1: size '1099511627777' is not an integer in \[0, 2\^40\]$/],
  ['upper past 2^62', '0,1,4611686018427387905,3', /^line 1: upper '4611686018427387905' is not/],
  ['fraction', '0,1.5,2,3', /^line 1: lower '1.5' is not an integer/],
  ['a header that is not one', 'a,b,c,d\n', /^line 1: lower 'b' is not an integer/],
  ['header twice', 'id,lower,upper,size\nid,lower,upper,size\n', /^line 2: lower 'lower' is not an integer/],
  ['bad row after good ones, CRLF', 'id,lower,upper,size\r\n0,0,2,8\r\n1,1,3,8\r\n2,2,x,8\r\n', /^line 4: upper 'x' is not an integer/],
  ['blank lines are counted', '\n\n0,3,1,5', /^line 3: upper 1 <= lower 3$/],
  ['line too long', `0,1,2,${'9'.repeat(5000)}`, /^line 1: longer than 4096 bytes$/],
  ['non-ASCII field', '0,1,2,\u00e9\u00e9', /^line 1: size '\?+' is not an integer/],
  ['markup in a field', '0,<b>1</b>,2,3', /^line 1: lower '<b>1<\/b>' is not an integer/],
];

describe('what-if on CSV problems', () => {
  it.each(BAD_CSV)('%s: an Error naming the line, and the module keeps working', (name, text, message) => {
    let err = null;
    try { galloc.whatifCsv(text, { budgetMs: 0 }); } catch (e) { err = e; }
    expect(err).toBeInstanceOf(Error);
    expect(err.code).toBe(name === 'line too long' ? 'limit' : 'invalid-input'); // past the reader's limit
    expect(err.message).toMatch(message);
    expect(galloc.whatifCsv('0,0,2,8\n1,1,3,8\n', { budgetMs: 0 }).lower_bound).toBe(16);
  });

  it('an empty problem, and a header alone, are refused: there is nothing to place', () => {
    for (const text of ['', 'id,lower,upper,size\n', '\n\n']) {
      expect(() => galloc.whatifCsv(text, { budgetMs: 0 })).toThrow(/^no rows \(expected lines id,lower,upper,size\)$/);
    }
  });

  it('rows live over [lower, upper): items are inclusive [lower, upper - 1]', () => {
    const r = galloc.whatifCsv('id,lower,upper,size\n7,0,2,8\n9,2,4,8\n', { capacity: 8, budgetMs: 0 });
    expect(r.items).toEqual([{ id: 0, tensors: 1, size: 8, first: 0, last: 1 }, { id: 1, tensors: 1, size: 8, first: 2, last: 3 }]);
    expect(r.lower_bound).toBe(8);
    expect(r.capacity).toBe(8);
    expect(r.alignment).toBe(1);
    expect(r.max_size).toBe(null);
    expect(r.buffer_type).toBe(null);
  });

  it('a capacity past 2^53 crosses exactly', () => {
    const r = galloc.whatifCsv('0,0,1,8', { capacity: (1n << 60n) + 1n, budgetMs: 0 });
    expect(r.capacity).toBe(String((1n << 60n) + 1n));
    expect(galloc.whatifCsv('0,0,1,8', { capacity: '4294967297', budgetMs: 0 }).capacity).toBe(4294967297);
  });

  it('a small problem with a known optimum: the exact search finds and proves it', () => {
    // lower bound 6 at t = 4 (rows 1 and 3); 6 is reachable: row 1 at 0, row 3 at 4, row 2 at 0, row 0 at 2
    const csv = 'id,lower,upper,size\n0,1,2,3\n1,4,7,4\n2,0,3,2\n3,2,5,2\n';
    const r = galloc.whatifCsv(csv, { budgetMs: 2000 });
    const exact = r.planners[3];
    expect(r.lower_bound).toBe(6);
    expect(exact).toMatchObject({ name: 'exact', checked: true, total: 6, proved_optimal: true, bound: 6 });
    expect(planViolations(r, exact)).toEqual([]);
    expect(r.best).toBe('exact');
    expect(Math.min(...r.planners.slice(0, 3).map((p) => p.total))).toBeGreaterThan(6); // no heuristic finds it
    expect(bruteForceOptimum(r.items)).toBe(6);
  });

  it('random small problems: the exact search reaches the brute-force optimum and proves it', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const rnd = random(seed);
      const n = 4 + Math.floor(rnd() * 4);
      const rows = [];
      for (let i = 0; i < n; i++) {
        const lo = Math.floor(rnd() * 6);
        rows.push(`${i},${lo},${lo + 1 + Math.floor(rnd() * 3)},${[1, 2, 3, 4, 5, 8][Math.floor(rnd() * 6)]}`);
      }
      const r = galloc.whatifCsv(rows.join('\n'), { budgetMs: 2000 });
      const exact = r.planners[3];
      expect(exact.proved_optimal, `seed ${seed}`).toBe(true);
      expect(exact.total, `seed ${seed}: ${rows.join(' ')}`).toBe(bruteForceOptimum(r.items));
      for (const p of r.planners) expect(planViolations(r, p), `seed ${seed} ${p.name}`).toEqual([]);
    }
  });

  it('MiniMalloc problem A (154 rows) at its capacity of 1 MiB: solved and proved within 20 s', { timeout: 60000 }, () => {
    const t0 = performance.now();
    const r = galloc.whatifCsv(CSV_A, { capacity: 1048576, budgetMs: 20000 });
    const ms = performance.now() - t0;
    const exact = r.planners[3];
    expect(r.items).toHaveLength(154);
    expect(r.lower_bound).toBe(1048576);
    expect(exact.total).toBe(1048576);
    expect(exact.proved_optimal).toBe(true);
    expect(planViolations(r, exact)).toEqual([]);
    expect(ms).toBeLessThan(20000);
    console.log(`MiniMalloc A in WASM under Node: exact search ${(exact.time_us / 1000).toFixed(0)} ms (${exact.nodes} nodes), whole call ${ms.toFixed(0)} ms`);
  });
});

describe('no leak', () => {
  it('300 analyses (graphs, CSV problems, errors) leave the heap as it was', { timeout: 120000 }, () => {
    const graphs = ['llama-tiny', 'test_not_enough_chunks', 'llama-tiny-2buft'].map((n) => galloc.presetText(n));
    galloc.whatif(graphs[0], { budgetMs: 0 }); // warm up
    const before = galloc.heapUsed();
    const length = galloc.m.HEAPU8.length;
    let errors = 0;
    for (let i = 0; i < 300; i++) {
      galloc.whatif(graphs[i % 3], { bufferType: i % 3 === 2 ? i % 2 : 0, budgetMs: i % 10 === 0 ? 20 : 0 });
      galloc.whatifCsv(CSV_A, { capacity: 1048576, budgetMs: 0 });
      const [, text] = BAD_CSV[i % BAD_CSV.length];
      try { galloc.whatifCsv(text, { budgetMs: 0 }); } catch { errors++; }
      try { galloc.whatif(graphs[0], { bufferType: 3 }); } catch { errors++; }
    }
    expect(errors).toBe(600);
    expect(galloc.heapUsed()).toBe(before);
    expect(galloc.m.HEAPU8.length).toBe(length);
  });
});
