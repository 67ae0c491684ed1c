// whatif-helpers.js: what the what-if tests share: the native CLI's `--compare` table parsed
// into numbers, an independent checker of what-if plans, and the exact optimum of a small
// problem by brute force.

import { runCli } from './wasm-helpers.js';

const ROW = /^ {2}(ggml|greedy-by-size|greedy-by-breadth|exact)\s+(\d+|-)\s/;
const HEAD = /^buffer (\d+) \((.*)\): (\d+) items, lower bound (\d+) bytes/;

/**
 * `galloc plan - --compare --budget-ms N` of a graph document, as numbers: per buffer type that
 * owns its allocator {buffer, items, lowerBound, totals: {planner: bigint|null}}.
 * @param {string} graphText
 * @param {number} budgetMs
 * @returns {Array<{buffer: number, items: number, lowerBound: bigint, totals: Record<string, bigint|null>}>}
 */
export function cliCompare(graphText, budgetMs) {
  const r = runCli(['plan', '-', '--compare', '--budget-ms', String(budgetMs)], graphText);
  if (r.status !== 0) throw new Error(`galloc plan --compare failed (exit ${r.status}): ${r.stderr.trim()}`);
  const out = [];
  for (const line of r.stdout.split('\n')) {
    const h = HEAD.exec(line);
    if (h) {
      out.push({ buffer: Number(h[1]), items: Number(h[3]), lowerBound: BigInt(h[4]), totals: {} });
      continue;
    }
    const row = ROW.exec(line);
    if (row && out.length) out[out.length - 1].totals[row[1]] = row[2] === '-' ? null : BigInt(row[2]);
  }
  if (out.length === 0) throw new Error(`no table in the CLI's output:\n${r.stdout}`);
  return out;
}

/**
 * Check a planner's plan of a what-if result without the library: every item in a chunk with
 * an aligned offset, no two items live at one step overlapping in one chunk, the max-size rule
 * (galloc-whatif.h step 4),
 * chunk sizes = the highest end of their items, total = their sum. Returns the violations.
 * @param {import('../../web/src/core/galloc.js').WhatifResult} result
 * @param {import('../../web/src/core/galloc.js').WhatifPlanner} plan
 * @returns {string[]}
 */
export function planViolations(result, plan) {
  const out = [];
  const items = result.items;
  const align = BigInt(result.alignment);
  const max = result.max_size === null ? null : BigInt(result.max_size);
  const nChunks = plan.chunk_sizes.length;
  const ends = new Array(nChunks).fill(0n);
  // a chunk holds max_size bytes, or the size of a larger item at its start (as ggml opens one for it)
  const room = new Array(nChunks).fill(max ?? 0n);
  items.forEach((it, k) => {
    const c = plan.chunks[k];
    if (c >= 0 && c < nChunks && BigInt(plan.offsets[k]) === 0n && BigInt(it.size) > room[c]) room[c] = BigInt(it.size);
  });
  items.forEach((it, k) => {
    const c = plan.chunks[k];
    const off = BigInt(plan.offsets[k]);
    const size = BigInt(it.size);
    if (!(c >= 0 && c < nChunks)) { out.push(`item ${k}: chunk ${c} of ${nChunks}`); return; }
    if (off % align !== 0n) out.push(`item ${k}: offset ${off} not aligned to ${align}`);
    if (max !== null && off !== 0n && c !== 15 && off + size > room[c]) out.push(`item ${k}: [${off}, ${off + size}) passes the chunk's room ${room[c]}`);
    if (off + size > ends[c]) ends[c] = off + size;
  });
  ends.forEach((e, c) => { if (BigInt(plan.chunk_sizes[c]) !== e) out.push(`chunk ${c}: size ${plan.chunk_sizes[c]}, items end at ${e}`); });
  const sum = ends.reduce((a, b) => a + b, 0n);
  if (BigInt(plan.total) !== sum) out.push(`total ${plan.total}, chunks sum to ${sum}`);
  for (let a = 0; a < items.length && out.length < 10; a++) {
    for (let b = a + 1; b < items.length; b++) {
      const A = items[a];
      const B = items[b];
      if (plan.chunks[a] !== plan.chunks[b] || A.last < B.first || B.last < A.first) continue;
      const ao = BigInt(plan.offsets[a]);
      const bo = BigInt(plan.offsets[b]);
      if (ao < bo + BigInt(B.size) && bo < ao + BigInt(A.size)) out.push(`items ${a} and ${b} overlap in chunk ${plan.chunks[a]}`);
    }
  }
  return out;
}

/**
 * The smallest total of a small one-chunk problem (sizes as numbers, no alignment), by
 * first-fit over every order of the items: placing the items of an optimal plan in order of
 * their offsets, each at the lowest offset free of its placed conflicts, never puts one
 * higher than that plan does, so some order reaches the optimum.
 * @param {Array<{size: number, first: number, last: number}>} items at most 8
 * @returns {number}
 */
export function bruteForceOptimum(items) {
  const n = items.length;
  let best = Infinity;
  const order = [];
  const used = new Array(n).fill(false);
  const offs = new Array(n).fill(0);
  const conflict = (a, b) => !(items[a].last < items[b].first || items[b].last < items[a].first);
  const rec = (top) => {
    if (top >= best) return;
    if (order.length === n) { best = top; return; }
    for (let j = 0; j < n; j++) {
      if (used[j]) continue;
      // lowest offset where j fits among its placed conflicts
      const placed = order.filter((k) => conflict(j, k)).map((k) => [offs[k], offs[k] + items[k].size]).sort((x, y) => x[0] - y[0]);
      let at = 0;
      for (const [s, e] of placed) {
        if (at + items[j].size <= s) break;
        at = Math.max(at, e);
      }
      used[j] = true;
      offs[j] = at;
      order.push(j);
      rec(Math.max(top, at + items[j].size));
      order.pop();
      used[j] = false;
    }
  };
  rec(0);
  return n === 0 ? 0 : best;
}

/**
 * A deterministic pseudo-random generator (mulberry32).
 * @param {number} seed
 * @returns {() => number} in [0, 1)
 */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
