// ui-explain.test.js: the explanation panels' pure helpers (web/src/core/explain-model.js) on a
// real explanation of the hand-solved chain graph (tests/explain/README.md) and on layouts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { ROOT, loadWasm } from './wasm-helpers.js';
import { formatDiff, layersText, layerText, liveAtStep, seriesMax, stepText } from '../../web/src/core/explain-model.js';
import { formatBytes } from '../../web/src/core/format.js';

const galloc = await loadWasm();
const ex = galloc.explain(readFileSync(path.join(ROOT, 'tests/explain/chain.graph.json'), 'utf8'));

describe('explain-model', () => {
  it('lists the live set of any step, largest first (chain: by hand)', () => {
    expect(liveAtStep(ex, 0, -1)).toEqual([0]);    // inp
    expect(liveAtStep(ex, 0, 0)).toEqual([1, 0]);  // x-0 32, inp 16
    expect(liveAtStep(ex, 0, 1)).toEqual([2, 1]);  // y-0 64, x-0 32: the peak
    expect(liveAtStep(ex, 0, 2)).toEqual([2, 3]);  // y-0 64, x-1 16
    expect(liveAtStep(ex, 0, 3)).toEqual([3, 4]);  // x-1 16, out 16 (ties: lower index)
    expect(liveAtStep(ex, 1, 1)).toEqual([]);
    // the sums are the library's series
    for (let s = -1; s < ex.n_steps; s++) {
      expect(liveAtStep(ex, 0, s).reduce((a, t) => a + ex.hold_bytes[t], 0)).toBe(ex.buffers[0].live_bytes[s + 1]);
    }
  });

  it('takes the maximum of series past 2^53', () => {
    expect(seriesMax([1, '18014398509481985', 3])).toBe(18014398509481985n);
    expect(seriesMax([])).toBe(0n);
  });

  it('writes layers, steps and differences', () => {
    expect(layerText(ex, 0)).toBe('layer 0 of 2');
    expect(layerText(ex, -1)).toBe('');
    expect(layersText({ n_layers: 80 }, { first_layer: 3, last_layer: 79 })).toBe('layers 3–79 of 80');
    expect(stepText(-1)).toBe('before the first node');
    expect(formatDiff(-32, formatBytes)).toBe('−32 B');
    expect(formatDiff('1073741824', formatBytes)).toBe('+1.00 GiB');
    expect(formatDiff(0, formatBytes)).toBe('0 B');
  });
});
