// legend.mjs: e2e check of the timeline's legend (called by e2e.mjs): it lists the marks the
// timeline draws and only those: views when the plan has views, the max-size line when a max
// size is set, a step's band and its marks when a step is shown. The tensors' names are written
// on their rectangles; the exported SVG and PNG carry the title and subtitle apart, the step
// axis, the names and the legend. Screenshots: legend-1280.png, legend-1600.png,
// export-legend.png (the PNG export).
import path from 'node:path';
import { readFileSync } from 'node:fs';

export async function legendChecks({ page, check, assert, OUT }) {
  const has = (id) => page.locator(`[data-testid=legend-${id}]`).count().then((n) => n > 0);
  await check('the timeline legend names the marks drawn: family colours, views, chunk line, max-size line, the step\'s marks', async () => {
    await page.selectOption('[data-testid=preset]', 'test_reuse_and_free');
    await page.waitForSelector('[data-testid=timeline-legend]', { timeout: 10000 });
    assert(await has('family') && await has('chunk') && await has('view'), 'the legend lacks the family colour, chunk line or view mark');
    assert(!(await has('step')), 'a step mark listed with no step shown');
    const names = await page.locator('[data-testid=rect-labels] text').allTextContents();
    for (const n of ['x0', 'x1', 'x3', 'x4', 'x5', 'x6']) assert(names.includes(n), `the timeline names ${JSON.stringify(names)}, not ${n}`);
    // the export reads on its own
    const [dl] = await Promise.all([page.waitForEvent('download'), page.selectOption('[data-testid=export]', 'svg')]);
    const svgFile = path.join(OUT, 'export-legend.svg');
    await dl.saveAs(svgFile);
    const got = await page.evaluate((text) => {
      const d = new DOMParser().parseFromString(text, 'image/svg+xml');
      const y = (sel) => Number(d.querySelector(sel)?.getAttribute('y'));
      return { titleY: y('text.title'), subY: y('text.subtitle'), steps: [...d.querySelectorAll('g.step-axis g.tick')].length,
        legend: [...d.querySelectorAll('g.legend-item')].map((g) => g.dataset.id), names: [...d.querySelectorAll('g.rect-labels text')].map((t) => t.textContent) };
    }, readFileSync(svgFile, 'utf8'));
    assert(got.subY - got.titleY >= 14, `the export's subtitle at y ${got.subY}, its title at ${got.titleY}: they overlap`);
    assert(got.steps >= 7, `the export's step axis has ${got.steps} ticks`);
    assert(JSON.stringify(got.legend) === JSON.stringify(['family', 'view', 'chunk', 'max']), `the export's legend lists ${JSON.stringify(got.legend)}`);
    assert(['x0', 'x4', 'x6'].every((n) => got.names.includes(n)), `the export names ${JSON.stringify(got.names)}`);
    const [png] = await Promise.all([page.waitForEvent('download'), page.selectOption('[data-testid=export]', 'png')]);
    await png.saveAs(path.join(OUT, 'export-legend.png'));
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
