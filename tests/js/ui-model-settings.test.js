// ui-model-settings.test.js: the model page's pure parts: settings edits, the llama.cpp command
// line and log line, the sweep's points, and the sweep runner over a fake worker.

import { describe, expect, it } from 'vitest';

import { CONTEXTS, UBATCHES, START_SETTINGS, commandLine, computeLogLine, sweepPoints, withSetting, settingVariants } from '../../web/src/core/model-settings.js';
import { createSweepRunner } from '../../web/src/core/sweep-client.js';

describe('settings', () => {
  it('a change is coerced to what the module takes; -b follows a larger -ub', () => {
    const s = withSetting(START_SETTINGS, 'n_ctx', '32768');
    expect(s.n_ctx).toBe(32768);
    expect(withSetting(s, 'type_k', 'q8_0').type_k).toBe('q8_0');
    expect(withSetting({ ...s, n_batch: 512 }, 'n_ubatch', '1024')).toMatchObject({ n_ubatch: 1024, n_batch: 1024 });
    expect(withSetting({ ...s, n_batch: 4096 }, 'n_ubatch', '1024')).toMatchObject({ n_ubatch: 1024, n_batch: 4096 });
    expect(START_SETTINGS.n_ctx).toBe(4096); // unchanged
  });
  it('the command line and the log line read as llama.cpp\'s', () => {
    expect(commandLine(START_SETTINGS)).toBe('-c 4096 -b 2048 -ub 512 -fa on');
    expect(commandLine({ ...START_SETTINGS, flash_attn: 0, type_k: 'q8_0', type_v: 'q4_0', n_seq: 4, graph: 'decode' }))
      .toBe('-c 4096 -b 2048 -ub 512 -fa off -ctk q8_0 -ctv q4_0 -np 4 --graph decode');
    expect(computeLogLine({ name: 'CPU', compute: 322971648 })).toBe('CPU compute buffer size = 308.01 MiB');
    expect(computeLogLine({ name: 'CUDA0', compute: 630912 })).toBe('CUDA0 compute buffer size = 0.60 MiB');
  });
  it('the same model at other settings (compare two plans): each variant one flag changed, its label that flag', () => {
    const v = settingVariants(START_SETTINGS);
    expect(v.map((x) => x.label)).toEqual(['-fa off', '-c 8192', '-c 2048', '-ub 1024', '-ub 256', '-ctk q8_0 -ctv q8_0', 'the decode graph (one token)']);
    for (const { label, settings } of v) {
      // the command line of the variant differs from the settings' by the flag named (and -b when -ub passes it)
      const a = commandLine(START_SETTINGS).split(' ');
      const b = commandLine(settings).split(' ');
      const changed = b.filter((w, i) => w !== a[i] || i >= a.length).join(' ');
      if (label.startsWith('-')) expect(label.split(' ').filter((w) => !w.startsWith('-')).every((w) => changed.includes(w)), `${label}: ${changed}`).toBe(true);
    }
    expect(v[0].settings.flash_attn).toBe(0);
    expect(settingVariants({ ...START_SETTINGS, flash_attn: 0 })[0]).toMatchObject({ label: '-fa on', settings: { flash_attn: 1 } });
    expect(settingVariants({ ...START_SETTINGS, graph: 'decode' }).at(-1)).toMatchObject({ label: 'the prompt graph', settings: { graph: 'prompt' } });
    expect(settingVariants({ ...START_SETTINGS, n_ctx: 0 }).map((x) => x.label)).not.toContain('-c 0');
  });
  it('a sweep has every context for fa off and on, at each micro-batch', () => {
    const p = sweepPoints(START_SETTINGS);
    expect(p.length).toBe(2 * CONTEXTS.length);
    expect(p.filter((x) => x.flash_attn === 0).map((x) => x.n_ctx)).toEqual(CONTEXTS);
    const q = sweepPoints({ ...START_SETTINGS, n_batch: 512 }, { ubatches: [128, 2048], maxCtx: 8192 });
    expect(q.length).toBe(2 * 2 * CONTEXTS.filter((c) => c <= 8192).length);
    expect(q.every((x) => x.n_batch >= x.n_ubatch)).toBe(true);
  });
  it('a micro-batch sweep has every micro-batch for fa off and on, at the settings\' context', () => {
    const p = sweepPoints({ ...START_SETTINGS, n_ctx: 8192, n_batch: 512 }, { axis: 'n_ubatch' });
    expect(p.length).toBe(2 * UBATCHES.length);
    expect(p.filter((x) => x.flash_attn === 1).map((x) => x.n_ubatch)).toEqual(UBATCHES);
    expect(p.every((x) => x.n_ctx === 8192 && x.n_batch === Math.max(512, x.n_ubatch))).toBe(true);
  });
});

describe('sweep runner', () => {
  function fakeWorker(answer) {
    const w = { terminated: false, onmessage: null, onerror: null, terminate() { this.terminated = true; } };
    w.postMessage = (m) => queueMicrotask(() => answer(w, m));
    return w;
  }
  it('reports progress and resolves with the results', async () => {
    const seen = [];
    const r = createSweepRunner(() => fakeWorker((w, m) => {
      m.points.forEach((_, i) => w.onmessage({ data: { id: m.id, progress: { done: i + 1, total: m.points.length } } }));
      w.onmessage({ data: { id: m.id, ok: true, results: m.points.map((p) => ({ n: p.n_ctx })) } });
    }));
    const out = await r.run({ card: 'x' }, [{ n_ctx: 1 }, { n_ctx: 2 }], (d, t) => seen.push(`${d}/${t}`));
    expect(out).toEqual([{ n: 1 }, { n: 2 }]);
    expect(seen).toEqual(['1/2', '2/2']);
    expect(r.busy).toBe(false);
  });
  it('a new sweep or cancel() rejects the running one with code cancelled and stops its worker', async () => {
    const workers = [];
    const r = createSweepRunner(() => { const w = fakeWorker(() => {}); workers.push(w); return w; });
    const first = r.run({ card: 'x' }, [{}]);
    const second = r.run({ card: 'x' }, [{}]);
    await expect(first).rejects.toMatchObject({ code: 'cancelled' });
    expect(workers[0].terminated).toBe(true);
    r.cancel();
    await expect(second).rejects.toMatchObject({ code: 'cancelled' });
    expect(workers[1].terminated).toBe(true);
  });
  it('an error answer rejects with its code', async () => {
    const r = createSweepRunner(() => fakeWorker((w, m) => w.onmessage({ data: { id: m.id, ok: false, error: { message: 'no', code: 'invalid-input' } } })));
    await expect(r.run({ card: 'x' }, [{}])).rejects.toMatchObject({ code: 'invalid-input', message: 'no' });
  });
});
