// compare-settings.mjs: e2e check of "Compare two plans" with one model at two settings (called by
// e2e.mjs; issue 28 goal 6): the llama-3.1-8b card at -fa on (the page) against -fa off (B): both
// totals are the CLI's compute buffer bytes for those flags (`galloc model --card ... --json`),
// and B stays while A's settings change. realloc_a and realloc_b side by side under the lesson,
// their chunks the CLI's, and one click compares them. Screenshots: compare-fa.png, realloc-pair.png.
import path from 'node:path';
import { execFileSync } from 'node:child_process';

export async function compareSettingsChecks({ page, check, assert, OUT, CLI }) {
  const cliChunks = (preset) => {
    const doc = execFileSync(CLI, ['preset', preset], { encoding: 'utf8' });
    return JSON.parse(execFileSync(CLI, ['plan', '-'], { input: doc, encoding: 'utf8' })).buffers[0].chunk_sizes.join(',');
  };
  await check('realloc_a and realloc_b side by side: both plans\' chunks (the CLI\'s) under the lesson; one click compares them', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.selectOption('[data-testid=preset]', 'realloc_b');
    await page.waitForSelector('[data-testid=preset-pair]', { timeout: 10000 });
    for (const n of ['realloc_a', 'realloc_b']) {
      const got = await page.getAttribute(`[data-testid=pair-${n}]`, 'data-chunks');
      assert(got === cliChunks(n), `${n}: the pair shows chunks ${got}, the CLI plans ${cliChunks(n)}`);
    }
    await page.screenshot({ path: path.join(OUT, 'realloc-pair.png') });
    await page.click('[data-testid=pair-compare]');
    await page.waitForSelector('[data-testid=compare-total]', { timeout: 10000 });
    const t = await page.$eval('[data-testid=compare-total]', (e) => [e.dataset.totalA, e.dataset.totalB]);
    assert(t[0] === '40' && t[1] === '40', `realloc_b against realloc_a: totals ${t}`);
    await page.click('[data-testid=compare-view] .peak-title button');
    await page.selectOption('[data-testid=preset]', 'test_reuse_and_free');
    assert(await page.locator('[data-testid=preset-pair]').count() === 0, 'a preset with no partner shows a pair');
  });
  const cli = (flags) => JSON.parse(execFileSync(CLI, ['model', '--card', 'llama-3.1-8b', ...flags.split(' '), '--json'], { encoding: 'utf8' }))
    .buffer_types.reduce((a, b) => a + b.compute, 0);
  await check('compare two plans: one model at two settings (llama-3.1-8b, -fa on against -fa off), both totals the CLI\'s', async () => {
    await page.setViewportSize({ width: 1600, height: 1000 });
    await page.selectOption('[data-testid=card]', 'llama-3.1-8b');
    await page.waitForFunction(() => /llama-3\.1-8b/i.test(document.querySelector('[data-testid=model-summary]')?.textContent ?? ''), null, { timeout: 30000 });
    // the settings this check starts from (earlier checks leave others: settings outlive a card)
    for (const [k, v] of [['flash_attn', '1'], ['type_k', 'f16'], ['type_v', 'f16'], ['graph', 'prompt']]) await page.selectOption(`[data-testid=set-${k}]`, v);
    for (const [k, v] of [['n_ctx', '4096'], ['n_ubatch', '512'], ['n_batch', '2048'], ['n_seq', '1']]) {
      await page.fill(`[data-testid=set-${k}]`, v);
      await page.press(`[data-testid=set-${k}]`, 'Enter');
    }
    await page.waitForFunction(() => document.querySelector('[data-testid=model-cmd]')?.textContent.trim() === '-c 4096 -b 2048 -ub 512 -fa on', null, { timeout: 30000 })
      .catch(async () => { throw new Error(`the settings are ${await page.textContent('[data-testid=model-cmd]')}`); });
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
    // the KV cache in llama.cpp's MiB, as the CLI prints it ('KV cache = 512.00 MiB')
    const log = execFileSync('sh', ['-c', `"$0" model --card llama-3.1-8b ${cmd} 2>&1 >/dev/null`, CLI], { encoding: 'utf8' });
    const kv = /KV cache = ([\d.]+ MiB)/.exec(log)?.[1];
    const shown = await page.textContent('[data-testid=kv-size]');
    assert(kv && shown === `KV cache ${kv}`, `the page says "${shown}", the CLI "KV cache = ${kv}"`);
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
