// ui-timeline-scale.test.js: the byte scale and lane heights the timeline starts with, chosen for
// the plan by one rule (core/timeline-scale.js): linear when at least 90 % of the tensors are 4 px
// tall or more on it, else piecewise; lanes made taller until they are. Checked on the teaching
// scenarios (linear: what they teach is read in proportion), one huge tensor beside many small
// ones (made by hand), llama.cpp's real graphs (a 70B plan among them), and many chunks.
import { describe, it, expect, beforeAll } from 'vitest';
import { loadGalloc } from '../../web/src/core/galloc.js';
import { normalizeGraph } from '../../web/src/core/graph-model.js';
import { buildModel } from '../../web/src/core/plan-model.js';
import { timelineLayout, MIN_LANE_HEIGHT } from '../../web/src/core/timeline-layout.js';
import { chooseTimelineLayout, readableShare, READABLE_SHARE, MAX_LANE_PX } from '../../web/src/core/timeline-scale.js';

let g;
beforeAll(async () => { g = await loadGalloc(); });
const modelOf = (doc) => { const d = normalizeGraph(g.normalize(doc)); return buildModel(d, g.plan(d)); };
// the timeline's size at 1280x800: the right column's width, 62 % of the window's height
const AT_1280 = { width: 780, height: 496 };

describe('the byte scale chosen for the plan', () => {
  it('the teaching scenarios start linear, every tensor readable', () => {
    const names = g.presets().map((p) => p.name).filter((n) => /^(test_|realloc)/.test(n));
    expect(names.length).toBeGreaterThanOrEqual(13);
    for (const n of names) {
      const c = chooseTimelineLayout(modelOf(g.preset(n)), AT_1280);
      expect(c.scale, n).toBe('linear');
      expect(c.share, n).toBe(1);
    }
  });
  it('one huge tensor beside many small ones: piecewise, the small ones readable', () => {
    const tensors = [{ name: 'big', op: 'NONE', type: 'f32', ne: [262144], flags: ['input'] }];
    for (let k = 0; k < 30; k++) tensors.push({ name: `s${k}`, op: 'SCALE', type: 'f32', ne: [256], src: [k === 0 ? 0 : k] });
    const m = modelOf({ tensors, outputs: [30] });
    const lin = timelineLayout(m, { ...AT_1280, scale: 'linear' });
    expect(readableShare(lin)).toBeLessThan(READABLE_SHARE); // on a linear scale the 1 KiB tensors are slivers
    const c = chooseTimelineLayout(m, AT_1280);
    expect(c.scale).toBe('piecewise');
    expect(c.share).toBeGreaterThanOrEqual(READABLE_SHARE);
  });
  it('llama.cpp\'s graphs (8B, 70B, MoE, gemma, gpt-oss): piecewise, the most readable of the scales offered', () => {
    for (const n of ['llama-3.1-8b-c4096', 'llama-3.1-70b-c8192', 'qwen3-30b-a3b-c4096', 'gemma-3-4b-c4096', 'gpt-oss-20b-c4096']) {
      const m = modelOf(g.preset(n));
      const c = chooseTimelineLayout(m, AT_1280);
      expect(c.scale, n).toBe('piecewise');
      const lin = readableShare(timelineLayout(m, { ...AT_1280, scale: 'linear' }));
      const log = readableShare(timelineLayout(m, { ...AT_1280, scale: 'log' }));
      expect(lin, n).toBeLessThan(READABLE_SHARE);
      expect(c.share, n).toBeGreaterThanOrEqual(Math.max(lin, log));
      // gpt-oss-20b keeps 16 % of its tensors under 4 px (inputs of a few bytes in a 0.6 GiB chunk)
      if (!n.startsWith('gpt-oss')) expect(c.share, n).toBeGreaterThanOrEqual(READABLE_SHARE);
    }
  });
  it('a scale picked by hand is kept', () => {
    const m = modelOf(g.preset('llama-3.1-70b-c8192'));
    for (const scale of ['linear', 'log']) {
      const c = chooseTimelineLayout(m, { ...AT_1280, scale });
      expect(c.scale).toBe(scale);
      expect(c.auto).toBe(false);
      expect(c.layout.lanes[0].scale).toBe(scale);
    }
  });
});

describe('lane heights chosen for the plan', () => {
  it('many chunks (llama-3.1-70b and qwen3-30b-a3b under a 32 MiB max size): lanes tall enough that the tensors are readable', () => {
    for (const n of ['llama-3.1-70b-c8192', 'qwen3-30b-a3b-c4096']) {
      const doc = g.preset(n);
      doc.buffer_types[0].max_size = 32 * 1024 * 1024;
      const m = modelOf(doc);
      expect(m.buffers[0].chunkSizes.length, n).toBeGreaterThanOrEqual(4);
      const c = chooseTimelineLayout(m, AT_1280);
      const squeezed = timelineLayout(m, { ...AT_1280, scale: c.scale });
      for (const l of c.layout.lanes) {
        expect(l.height, n).toBeGreaterThanOrEqual(Math.max(MIN_LANE_HEIGHT, squeezed.lanes[0].height));
        expect(l.height, n).toBeLessThanOrEqual(MAX_LANE_PX);
      }
      expect(c.share, n).toBeGreaterThanOrEqual(READABLE_SHARE);
      // qwen3's 4 lanes, sharing the height, leave 17 % of its tensors under 4 px: they grow
      if (n.startsWith('qwen3')) expect(readableShare(squeezed)).toBeLessThan(READABLE_SHARE);
    }
  });
  it('a small plan keeps the height it was given (no growth needed)', () => {
    const m = modelOf(g.preset('llama-tiny-max4k'));
    const c = chooseTimelineLayout(m, AT_1280);
    expect(c.layout.lanes.map((l) => l.height)).toEqual(timelineLayout(m, { ...AT_1280, scale: c.scale }).lanes.map((l) => l.height));
    expect(c.share).toBeGreaterThanOrEqual(READABLE_SHARE);
  });
});
