// scale.mjs: e2e check of the byte scale and lane heights the timeline starts with (called by
// e2e.mjs; issue 28 goal 3; the rule is core/timeline-scale.js, checked on plans by
// ui-timeline-scale.test.js): a teaching scenario starts linear, a 70B card's plan piecewise, and a
// scale picked by hand stays. Screenshots: scale-70b-1280.png, scale-70b-1600.png.
import path from 'node:path';

export async function scaleChecks({ page, check, assert, OUT }) {
  const scaleShown = () => page.$eval('[data-testid=byte-scale]', (e) => ({ value: e.value, scale: e.dataset.scale }));
  const laneScale = () => page.$$eval('[data-testid=timeline] .lane-frame', (f) => f.map((e) => e.getBoundingClientRect().height));
  await check('byte scale chosen for the plan: a teaching scenario linear, a 70B card piecewise; a scale picked by hand stays', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.selectOption('[data-testid=preset]', 'test_reuse_and_free');
    await page.waitForFunction(() => document.querySelector('[data-testid=byte-scale]')?.dataset.scale === 'linear', null, { timeout: 10000 })
      .catch(async () => { throw new Error(`test_reuse_and_free starts on ${JSON.stringify(await scaleShown())}`); });
    for (const [w, h] of [[1280, 800], [1600, 1000]]) {
      await page.setViewportSize({ width: w, height: h });
      await page.selectOption('[data-testid=card]', 'llama-3.1-70b');
      await page.waitForFunction(() => /70b/i.test(document.querySelector('[data-testid=model-summary]')?.textContent ?? '')
        && document.querySelector('[data-testid=byte-scale]')?.dataset.scale === 'piecewise', null, { timeout: 30000 })
        .catch(async () => { throw new Error(`the 70B card starts on ${JSON.stringify(await scaleShown())}`); });
      const s = await scaleShown();
      assert(s.value === 'auto', `the scale menu says ${s.value}`);
      const lanes = await laneScale();
      assert(lanes.every((hh) => hh >= 48), `lanes of ${lanes} px`);
      await page.locator('[data-testid=timeline]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(OUT, `scale-70b-${w}.png`) });
    }
    await page.selectOption('[data-testid=byte-scale]', 'linear');
    await page.waitForFunction(() => document.querySelector('[data-testid=byte-scale]')?.dataset.scale === 'linear', null, { timeout: 5000 });
    await page.selectOption('[data-testid=byte-scale]', 'auto');
    await page.waitForFunction(() => document.querySelector('[data-testid=byte-scale]')?.dataset.scale === 'piecewise', null, { timeout: 5000 });
  });
}
