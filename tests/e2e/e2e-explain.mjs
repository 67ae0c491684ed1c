// e2e-explain.mjs: the explanation panels in the browser (called from e2e.mjs): the peak panel,
// the memory chart and the compare view on llama.cpp's graph of Llama 3.1 70B (the card preset
// llama-3.1-70b-c8192, against llama-3.1-8b-c4096), each against numbers worked out here from the
// graph document or planned by the native CLI (the compare view also with ggml's plan against the
// What-if panel's greedy-by-size plan, against the CLI's `plan --compare` totals); screenshots of each.
import path from 'node:path';
import { formatBytes } from '../../web/src/core/format.js';
import { cliCompare } from '../js/whatif-helpers.js';

/** bytes of a tensor of a graph document (f32/f16/i32 only: what the allocator places in the llama presets; else NaN) */
function nbytes(t) {
  const size = { f32: 4, f16: 2, i32: 4 }[t.type];
  return (t.ne ?? [1]).reduce((a, n) => a * n, 1) * size;
}

/**
 * @param {{page: import('playwright-core').Page, check: Function, assert: Function, cliPlan: Function,
 *   cliPreset: Function, OUT: string}} ctx
 */
export async function explainChecks({ page, check, assert, cliPlan, cliPreset, OUT }) {
  const name = 'llama-3.1-70b-c8192';
  const otherName = 'llama-3.1-8b-c4096';
  const doc = cliPreset(name);
  const plan = cliPlan(doc);
  // the largest tensor the allocator places (not a view, not external memory: the weights and KV
  // cache carry a buffer_type); the peak holds it in these graphs (result_output of the
  // 128k-token vocabulary, or with flash attention off kq-0)
  let biggest = -1;
  doc.tensors.forEach((t, i) => {
    if (t.view_src === undefined && t.buffer_type === undefined && !Number.isNaN(nbytes(t)) &&
      (biggest < 0 || nbytes(t) > nbytes(doc.tensors[biggest]))) biggest = i;
  });
  const big = doc.tensors[biggest];
  const layer = /-(\d+)$/.exec(big.name);

  await check(`peak panel on ${name}: the largest live tensor at the peak by name and size, without any hover`, async () => {
    await page.mouse.move(0, 0);
    await page.selectOption('[data-testid=preset]', name);
    await page.waitForFunction((size) => document.querySelector('[data-testid=peak-buffer-0]')?.dataset.size === String(size),
      plan.buffers[0].size, { timeout: 20000 });
    const peak = Number(await page.getAttribute('[data-testid=peak-buffer-0]', 'data-peak'));
    assert(peak === plan.buffers[0].peak_live, `panel peak ${peak}, CLI plan peak_live ${plan.buffers[0].peak_live}`);
    // folded by layer: the first row is the largest tensor's name with its layer folded ("kq-*", "layer 0 of 80")
    const row = page.locator('[data-testid=peak-live-0] tbody tr').first();
    const folded = big.name.replace(/-\d+$/, '-*');
    const text = await row.textContent();
    const size = formatBytes(nbytes(big));
    assert(text.includes(folded) && text.includes(size) && (!layer || text.includes(`layer ${layer[1]} of 80`)),
      `first row "${text}", expected ${folded}, ${size}${layer ? `, layer ${layer[1]} of 80` : ''}`);
    assert(Number(await row.getAttribute('data-bytes')) === nbytes(big), `first row holds ${await row.getAttribute('data-bytes')} bytes, ${big.name} is ${nbytes(big)}`);
    assert(await page.locator('[data-testid=tooltip]').count() === 0, 'a tooltip is open: the check must not need hover');
    await page.locator('[data-testid=peak-panel]').screenshot({ path: path.join(OUT, '40-peak-panel.png') });
    // one row per tensor: the tensor's own name
    await page.uncheck('[data-testid=peak-fold]');
    const first = await page.locator('[data-testid=peak-live-0] tbody tr').first().textContent();
    assert(first.includes(big.name) && first.includes(`f32 [${big.ne.join(', ')}]`), `per tensor, first row "${first}", expected ${big.name}`);
    await page.locator('[data-testid=peak-panel]').screenshot({ path: path.join(OUT, '41-peak-panel-per-tensor.png') });
    await page.check('[data-testid=peak-fold]');
    // a click selects it everywhere: the inspector names it
    await page.locator('[data-testid=peak-live-0] [data-testid=peak-tensor]').first().click();
    await page.waitForFunction((n) => document.querySelector('.inspector')?.textContent.includes(n), big.name, { timeout: 5000 });
  });

  await check(`memory chart on ${name}: its maximum is the plan's peak of live bytes; hover lists the step's live set inside the page; a brushed range zooms the timeline`, async () => {
    const chart = page.locator('[data-testid=memory-chart-0]');
    const maxLive = Number(await chart.getAttribute('data-max-live'));
    assert(maxLive === plan.buffers[0].peak_live, `chart max ${maxLive}, CLI plan peak_live ${plan.buffers[0].peak_live}`);
    assert(Number(await chart.getAttribute('data-max-high-water')) === plan.buffers[0].size, 'high-water maximum is not the buffer size');
    const label = await page.textContent('[data-testid=memory-peak-0]');
    assert(label.includes(formatBytes(plan.buffers[0].peak_live)), `peak label "${label}", peak ${formatBytes(plan.buffers[0].peak_live)}`);
    // the drawn area reaches its highest point (smallest y) at the peak's height: the path's min y
    const minY = await page.$eval('[data-testid=memory-live-0]', (p) => Math.min(...p.getAttribute('d').match(/,[\d.]+/g).map((s) => Number(s.slice(1)))));
    const dotY = Number(await page.getAttribute('[data-testid=memory-chart-0] .mc-peak-dot', 'cy'));
    assert(Math.abs(minY - dotY) < 0.01, `area top ${minY} is not the peak marker's ${dotY}`);
    await chart.scrollIntoViewIfNeeded(); // the mouse moves in the viewport
    const box = await chart.boundingBox();
    const peakStep = Number(await chart.getAttribute('data-peak-step'));
    const dotX = Number(await page.getAttribute('[data-testid=memory-chart-0] .mc-peak-dot', 'cx'));
    await page.mouse.move(box.x + dotX, box.y + box.height / 2);
    const hover = page.locator('[data-testid=memory-hover-0]');
    await hover.waitFor({ timeout: 5000 });
    const hb = await hover.boundingBox();
    const vp = page.viewportSize();
    assert(hb.x >= 0 && hb.y >= 0 && hb.x + hb.width <= vp.width && hb.y + hb.height <= Math.max(vp.height, hb.y + hb.height), 'hover box outside the viewport');
    assert(Number(await hover.getAttribute('data-step')) === peakStep, `hover at the peak marker shows step ${await hover.getAttribute('data-step')}, peak is ${peakStep}`);
    assert((await hover.textContent()).includes(big.name), `the hover box at the peak does not list ${big.name}`);
    await page.locator('[data-testid=memory-chart]').screenshot({ path: path.join(OUT, '42-memory-chart-hover.png') });
    // brush steps ~ 1/10 of the chart: the timeline zooms in about tenfold
    const k0 = Number(await page.getAttribute('[data-testid=timeline]', 'data-zoom-steps'));
    await chart.scrollIntoViewIfNeeded();
    const bb = await chart.boundingBox();
    box.x = bb.x;
    box.y = bb.y;
    await page.mouse.move(box.x + 70 + (box.width - 84) * 0.2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + 70 + (box.width - 84) * 0.3, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await page.waitForFunction((k) => Number(document.querySelector('[data-testid=timeline]').dataset.zoomSteps) > k * 5, k0, { timeout: 5000 });
    await page.screenshot({ path: path.join(OUT, '43-brushed-timeline.png'), fullPage: true });
    await page.click('[data-testid=memory-unzoom]');
    await page.waitForFunction(() => Number(document.querySelector('[data-testid=timeline]').dataset.zoomSteps) < 1.01, null, { timeout: 5000 });
  });

  await check(`compare view: ${name} against ${otherName}: the difference is the difference of the two plans' totals`, async () => {
    const other = otherName;
    const totalOf = (p) => p.buffers.reduce((s, b) => s + b.size, 0);
    const want = totalOf(cliPlan(cliPreset(other))) - totalOf(plan);
    await page.click('[data-testid=compare-open]');
    await page.selectOption('[data-testid=compare-preset]', other);
    await page.waitForSelector('[data-testid=compare-diff]', { timeout: 10000 });
    const got = Number(await page.getAttribute('[data-testid=compare-diff]', 'data-bytes'));
    assert(got === want, `compare view says ${got}, the CLI's totals differ by ${want}`);
    assert(await page.locator('[data-testid=compare-row]').count() > 0, 'no tensors account for the difference');
    // what is shown adds up: the rows make the peak's difference, peak and packing the size's
    const cell = (sel) => page.$$eval(sel, (els) => els.map((e) => Number(e.dataset.bytes)));
    const [sizeDiff, peakDiff, packDiff] = await cell('[data-testid=compare-size-diff], [data-testid=compare-peak-diff], [data-testid=compare-pack-diff]');
    const rows = await cell('[data-testid=compare-row-diff]');
    assert(sizeDiff === want, `buffer size difference ${sizeDiff}, totals differ by ${want}`);
    assert(peakDiff + packDiff === sizeDiff, `peak ${peakDiff} + packing ${packDiff} is not the size difference ${sizeDiff}`);
    const allShown = (await page.locator('[data-testid=compare-more]').count()) === 0;
    assert(!allShown || rows.reduce((a, b) => a + b, 0) === peakDiff, `the rows add up to ${rows.reduce((a, b) => a + b, 0)}, the peaks differ by ${peakDiff}`);
    await page.locator('[data-testid=compare-view]').screenshot({ path: path.join(OUT, '44-compare.png') });
  });

  await check(`compare view: ggml's plan of ${name} against the What-if panel's greedy-by-size plan: the difference is the difference of the two plans' totals`, async () => {
    const cli = cliCompare(JSON.stringify(doc), 0)[0]; // buffer type 0: ggml's total and greedy-by-size's
    const want = Number(cli.totals['greedy-by-size'] - cli.totals.ggml);
    assert(cli.totals.ggml === BigInt(plan.buffers[0].size), `the CLI's what-if ggml total ${cli.totals.ggml} is not its plan's ${plan.buffers[0].size}`);
    await page.selectOption('[data-testid=compare-offline]', 'greedy-by-size');
    await page.waitForFunction(() => document.querySelector('[data-testid=compare-total]')?.dataset.planner === 'greedy-by-size', null, { timeout: 60000 });
    const total = page.locator('[data-testid=compare-total]');
    const got = Number(await page.getAttribute('[data-testid=compare-diff]', 'data-bytes'));
    const [ta, tb] = [Number(await total.getAttribute('data-total-a')), Number(await total.getAttribute('data-total-b'))];
    const ggmlTotal = plan.buffers.reduce((a, b) => a + b.size, 0);
    assert(ta === ggmlTotal, `A's total ${ta}, the CLI's plan totals ${ggmlTotal}`);
    assert(tb === ggmlTotal + want, `B's total ${tb}, ggml's ${ggmlTotal} with buffer type 0 packed by greedy-by-size: ${ggmlTotal + want}`);
    assert(got === want, `compare view says ${got}, the CLI's greedy-by-size and ggml totals differ by ${want}`);
    // the same tensors are live at both peaks: all of it is packing, and the tensors above say where
    const cell = (sel) => page.$$eval(sel, (els) => els.map((e) => Number(e.dataset.bytes)));
    const [sizeDiff, peakDiff, packDiff] = await cell('[data-testid=compare-size-diff], [data-testid=compare-peak-diff], [data-testid=compare-pack-diff]');
    assert(sizeDiff === want && peakDiff === 0 && packDiff === want, `size ${sizeDiff}, peak ${peakDiff}, packing ${packDiff}: expected ${want}, 0, ${want}`);
    const side = want < 0 ? 'a' : 'b';
    if (want !== 0) {
      const n = await page.locator(`[data-testid=compare-above-${side}] [data-testid=compare-above-row]`).count();
      assert(n > 0, `no tensors of the larger plan listed above the smaller's size`);
    }
    await page.locator('[data-testid=compare-view]').screenshot({ path: path.join(OUT, '45-compare-offline.png') });
    await page.click('[data-testid=whatif-close]'); // choosing an offline plan opened the What-if panel
  });
}
