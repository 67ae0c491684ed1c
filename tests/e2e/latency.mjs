// latency.mjs: how long a setting change on a 70B card takes until its new numbers and timeline
// are on screen, and the longest task it blocks the page for (called by e2e.mjs; issue 28 goal 7).
// Measured in the browser and printed, never asserted (the machine's load decides them): from
// the change event to the first frame after the timeline is drawn for the new settings
// (window.__gallocTimeline.paintedAt, a frame after the commit) with the breakdown of those
// settings shown; long tasks from a PerformanceObserver ('longtask', > 50 ms). Checked: the time
// the page states (data-shown in [data-testid=model-build-ms], from its change handler to the
// frame that shows the result) is at least the change handler's and at most what was measured
// here: it said 'built in 56 ms' for changes that took 125-410 ms to show.
export async function latencyChecks({ page, check, assert }) {
  const times = [];
  await check('latency: setting changes on the llama-3.1-70b card, measured and printed; the page states the time it took', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.selectOption('[data-testid=card]', 'llama-3.1-70b');
    await page.waitForFunction(() => /70b/i.test(document.querySelector('[data-testid=model-summary]')?.textContent ?? '') && document.querySelector('[data-testid=breakdown]'), null, { timeout: 30000 });
    // the settings the changes start from (earlier checks leave others: settings outlive a card)
    for (const [k, v] of [['flash_attn', '1'], ['type_k', 'f16'], ['type_v', 'f16'], ['graph', 'prompt']]) await page.selectOption(`[data-testid=set-${k}]`, v);
    for (const [k, v] of [['n_ctx', '4096'], ['n_ubatch', '512'], ['n_batch', '2048'], ['n_seq', '1']]) {
      await page.fill(`[data-testid=set-${k}]`, v);
      await page.press(`[data-testid=set-${k}]`, 'Enter');
    }
    await page.waitForFunction(() => document.querySelector('[data-testid=model-cmd]')?.textContent.trim() === '-c 4096 -b 2048 -ub 512 -fa on', null, { timeout: 30000 })
      .catch(async () => { throw new Error(`the settings are ${await page.textContent('[data-testid=model-cmd]')}`); });
    await page.waitForTimeout(500);
    await page.evaluate(() => {
      window.__longTasks = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push({ start: e.startTime, dur: e.duration }); }).observe({ type: 'longtask' });
    });
    const changes = [['flash_attn', '0'], ['flash_attn', '1'], ['n_ctx', '8192'], ['n_ubatch', '1024'], ['n_ctx', '4096'], ['n_ubatch', '512']];
    for (const [key, value] of changes) {
      // a typed field takes its text first (it is kept as a draft until Enter)
      await page.evaluate(([k, v]) => {
        const el = document.querySelector(`[data-testid=set-${k}]`);
        if (el.tagName === 'SELECT') return;
        Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value').set.call(el, v);
        el.dispatchEvent(new Event('input', { bubbles: true }));
      }, [key, value]);
      await page.waitForTimeout(100);
      const r = await page.evaluate(([k, v]) => new Promise((done) => {
        const el = document.querySelector(`[data-testid=set-${k}]`);
        const before = document.querySelector('[data-testid=model-cmd]').textContent;
        const t0 = performance.now();
        if (el.tagName === 'SELECT') {
          el.value = v;
          el.dispatchEvent(new Event('change', { bubbles: true }));
        } else {
          el.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
        }
        const handled = performance.now() - t0; // the change handler: the breakdown, the graph built and planned
        const look = () => {
          const tl = window.__gallocTimeline;
          const cmd = document.querySelector('[data-testid=model-cmd]').textContent;
          if (tl && tl.paintedAt > t0 && cmd !== before && document.querySelector('[data-testid=breakdown]')) {
            const shownAt = performance.now();
            // the page's own statement comes after the frame: wait for it
            const stated = () => {
              const s = document.querySelector('[data-testid=model-build-ms]');
              const v = s ? Number(s.dataset.shown) : NaN;
              if (s && s.dataset.at && Number(s.dataset.at) > t0) {
                done({ ms: shownAt - t0, painted: tl.paintedAt - t0, stated: v, handled, text: s.textContent.replace(/\s+/g, ' ').trim(),
                  longest: Math.max(0, ...window.__longTasks.filter((e) => e.start + e.dur > t0).map((e) => e.dur)), cmd });
              } else if (performance.now() - t0 > 20000) done({ ms: shownAt - t0, painted: tl.paintedAt - t0, stated: NaN, longest: NaN, cmd });
              else setTimeout(stated, 20);
            };
            stated();
          } else if (performance.now() - t0 > 20000) done({ ms: NaN, cmd });
          else requestAnimationFrame(look);
        };
        requestAnimationFrame(look);
      }), [key, value]);
      assert(Number.isFinite(r.ms), `-${key} ${value}: the timeline and breakdown never showed the new settings`);
      times.push(`70B ${key}=${value}: shown in ${r.ms.toFixed(0)} ms (the change handler ${r.handled.toFixed(0)} ms, timeline frame at ${r.painted.toFixed(0)}), longest task ${r.longest.toFixed(0)} ms; the page says ${Number.isFinite(r.stated) ? `${r.stated.toFixed(0)} ms` : 'nothing'}: "${r.text}"`);
      // the page's time covers at least the change handler, and ends no later than this look saw the new frame
      assert(Number.isFinite(r.stated) && r.stated >= r.handled - 2 && r.stated <= r.ms + 2,
        `-${key} ${value}: the page says ${r.stated} ms; its handler took ${r.handled.toFixed(0)} ms, it was on screen after ${r.ms.toFixed(0)} ms`);
      await page.waitForTimeout(300);
    }
  });
  return times;
}
