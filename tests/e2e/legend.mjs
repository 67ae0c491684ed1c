// legend.mjs: e2e check of the timeline's legend (called by e2e.mjs): it lists the marks the
// timeline draws and only those: views when the plan has views, the max-size line when a max
// size is set, a step's band and its marks when a step is shown. Screenshots: legend-1280.png,
// legend-1600.png.
import path from 'node:path';

export async function legendChecks({ page, check, assert, OUT }) {
  const has = (id) => page.locator(`[data-testid=legend-${id}]`).count().then((n) => n > 0);
  await check('the timeline legend names the marks drawn: family colours, views, chunk line, max-size line, the step\'s marks', async () => {
    await page.selectOption('[data-testid=preset]', 'test_reuse_and_free');
    await page.waitForSelector('[data-testid=timeline-legend]', { timeout: 10000 });
    assert(await has('family') && await has('chunk') && await has('view'), 'the legend lacks the family colour, chunk line or view mark');
    assert(!(await has('step')), 'a step mark listed with no step shown');
    const maxBefore = await has('max');
    assert(maxBefore === ((await page.locator('[data-testid=timeline] .max-line').count()) > 0), 'the max-size mark listed while no max line is drawn, or the reverse');
    await page.fill('[data-testid=max-size-0]', '24');
    await page.press('[data-testid=max-size-0]', 'Enter');
    await page.waitForSelector('[data-testid=legend-max]', { timeout: 5000 });
    assert(await page.locator('[data-testid=timeline] .max-line').count() > 0, 'the legend lists a max line the timeline does not draw');
    await page.click('[data-testid=step-next]');
    await page.waitForSelector('[data-testid=legend-step]', { timeout: 5000 });
    assert(await page.locator('[data-testid=timeline] .cursor').count() > 0, 'the legend lists a step band the timeline does not draw');
    for (const [w, h] of [[1280, 800], [1600, 1000]]) {
      await page.setViewportSize({ width: w, height: h });
      await page.locator('[data-testid=timeline]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(OUT, `legend-${w}.png`) });
    }
    await page.setViewportSize({ width: 1600, height: 1000 });
    await page.uncheck('[data-testid=show-views]');
    await page.waitForFunction(() => !document.querySelector('[data-testid=legend-view]'), null, { timeout: 5000 })
      .catch(() => { throw new Error('views hidden, the legend still lists them'); });
    await page.check('[data-testid=show-views]');
    await page.click('[data-testid=step-all]');
    await page.waitForFunction(() => !document.querySelector('[data-testid=legend-step]'), null, { timeout: 5000 });
  });
}
