// compare-settings.mjs: e2e check of "Compare two plans" with one model at two settings (called by
// e2e.mjs; issue 28 goal 6): the llama-3.1-8b card at -fa on (the page) against -fa off (B): both
// totals are the CLI's compute buffer bytes for those flags (`galloc model --card ... --json`),
// and B stays while A's settings change. Screenshot: compare-fa.png.
import path from 'node:path';
import { execFileSync } from 'node:child_process';

export async function compareSettingsChecks({ page, check, assert, OUT, CLI }) {
  const cli = (flags) => JSON.parse(execFileSync(CLI, ['model', '--card', 'llama-3.1-8b', ...flags.split(' '), '--json'], { encoding: 'utf8' }))
    .buffer_types.reduce((a, b) => a + b.compute, 0);
  await check('compare two plans: one model at two settings (llama-3.1-8b, -fa on against -fa off), both totals the CLI\'s', async () => {
    await page.setViewportSize({ width: 1600, height: 1000 });
    await page.selectOption('[data-testid=card]', 'llama-3.1-8b');
    await page.waitForFunction(() => /llama-3\.1-8b/i.test(document.querySelector('[data-testid=model-summary]')?.textContent ?? '')
      && document.querySelector('[data-testid=model-cmd]')?.textContent.includes('-fa on'), null, { timeout: 30000 });
    if (await page.locator('[data-testid=compare-open]').count()) await page.click('[data-testid=compare-open]');
    const cmd = (await page.textContent('[data-testid=model-cmd]')).trim();
    await page.selectOption('[data-testid=compare-settings]', { label: '-fa off' });
    await page.waitForSelector('[data-testid=compare-total]', { timeout: 20000 });
    const totals = () => page.$eval('[data-testid=compare-total]', (e) => [Number(e.dataset.totalA), Number(e.dataset.totalB)]);
    const [a, b] = await totals();
    const wantA = cli(cmd);
    const wantB = cli(cmd.replace('-fa on', '-fa off'));
    assert(a === wantA && b === wantB, `A ${a}, B ${b}; the CLI: ${cmd} ${wantA}, -fa off ${wantB}`);
    assert(a !== b, 'the two settings plan to the same size: nothing compared');
    await page.locator('[data-testid=compare-view]').scrollIntoViewIfNeeded();
    await page.screenshot({ path: path.join(OUT, 'compare-fa.png') });
    // A follows the page, B stays -fa off
    await page.fill('[data-testid=set-n_ctx]', '8192');
    await page.press('[data-testid=set-n_ctx]', 'Enter');
    const wantA2 = cli(cmd.replace('-c 4096', '-c 8192'));
    await page.waitForFunction((w) => Number(document.querySelector('[data-testid=compare-total]')?.dataset.totalA) === w, wantA2, { timeout: 20000 })
      .catch(async () => { throw new Error(`after -c 8192: A ${(await totals())[0]}, the CLI ${wantA2}`); });
    assert((await totals())[1] === wantB, `B changed with A's settings: ${(await totals())[1]}`);
    await page.click('[data-testid=compare-view] .peak-title button');
  });
}
