// ui-hostile.test.js: the UI's models on large and hostile input (issue 15).

import { describe, expect, it } from 'vitest';

import { csvWhatifSource } from '../../web/src/core/whatif-model.js';
import { timelineLayout, IDENTITY_X } from '../../web/src/core/timeline-layout.js';
import { timelineSvg } from '../../web/src/core/timeline-svg.js';
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

describe('exported SVG', () => {
  // XML 1.0 Char: tab, LF, CR, U+0020..U+D7FF, U+E000..U+FFFD, U+10000..U+10FFFF (an independent check)
  const xmlChars = (text) => [...text].every((ch) => {
    const c = ch.codePointAt(0);
    return c === 0x9 || c === 0xa || c === 0xd || (c >= 0x20 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd) || c >= 0x10000;
  });

  it('is well-formed XML for names holding U+0001, U+0007, U+001B and a lone surrogate', () => {
    const r = g.whatifCsv('0,0,2,8\n1,1,3,8\n', { budgetMs: 0 });
    const name = 'a\u0001b\u0007c\u001b[31m\ud800d<e>';
    const src = csvWhatifSource(r, 'exact', { name });
    const svg = timelineSvg(timelineLayout(src, { width: 600 }), src, { zx: IDENTITY_X, zys: [], title: src.title });
    expect(xmlChars(svg)).toBe(true);
    expect(svg).toContain('a\ufffdb\ufffdc\ufffd[31m\ufffdd&lt;e&gt;');
  });
});
