// ui-hostile.test.js: the UI's models on large and hostile input (issue 15).

import { describe, expect, it } from 'vitest';

import { csvWhatifSource } from '../../web/src/core/whatif-model.js';
import { loadWasm } from './wasm-helpers.js';

const g = await loadWasm();

describe('large CSV problems', () => {
  it('200,000 rows lay out (Math.min(...rows) overflowed the stack past ~130k)', () => {
    const rows = [];
    for (let i = 0; i < 200000; i++) rows.push(`${i},${i + 5},${i + 6},8`);
    const r = g.whatifCsv(rows.join('\n'), { budgetMs: 0 });
    const src = csvWhatifSource(r, 'greedy-by-size', { name: 'big' });
    expect(src.rects.length).toBe(200000);
    expect(src.rects[0].first).toBe(0); // shifted by the earliest lower, 5
    expect(src.steps).toBe(200000);
  });
});
