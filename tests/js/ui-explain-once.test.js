// ui-explain-once.test.js: the explanation of the plan on screen is computed once per plan and
// shared by every reader (state.js `explanation`: the tooltip, the layer slider; explain-state.js:
// the peak panel, the memory chart). A counting stand-in for the module's explain() shows how
// many times it runs while all of them read the result, and again after the plan changes.

import { describe, expect, it } from 'vitest';
import { batch, effect } from '@preact/signals';

import * as state from '../../web/src/state.js';
import * as explainState from '../../web/src/explain-state.js';

describe('the explanation', () => {
  it('runs once per plan, whoever reads it', () => {
    let calls = 0;
    // the kept document of the graph on screen (state.js `planned`, a GallocDocument): a stand-in
    const kept = (name) => ({ explain: () => { calls++; return { format: 'galloc-explain', of: name }; }, close() {} });
    const readers = [state.explanation, explainState.explanation];
    const seen = [];
    const stops = readers.map((r) => effect(() => { seen.push(r.value); }));
    batch(() => {
      state.planned.value = kept('one');
      state.plan.value = { buffers: [] };
    });
    for (const r of readers) expect(r.value?.of).toBe('one');
    expect(calls).toBe(1);
    batch(() => { // as state.js moves the document and plan on: together
      state.planned.value = kept('two');
      state.plan.value = { buffers: [] };
    });
    for (const r of readers) expect(r.value?.of).toBe('two');
    expect(calls).toBe(2);
    stops.forEach((s) => s());
    expect(seen.length).toBeGreaterThan(2);
  });
});
