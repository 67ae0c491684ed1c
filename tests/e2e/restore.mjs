// restore.mjs: e2e checks that nothing is lost (called by e2e.mjs): an edit survives a reload
// (kept in the browser) under its preset's name; Ctrl+Z after a preset brings back the header too; a model card with its settings and devices is
// in a short URL, and that URL opened in a new page shows the same breakdown and settings.
import path from 'node:path';

export async function restoreChecks({ page, context, check, assert, OUT, serverUrl }) {
  const lines = (p) => p.evaluate(() => [...document.querySelectorAll('.cm-content .cm-line')].map((l) => l.textContent));
  await check('a reload keeps an edit, under its preset\'s name', async () => {
    await page.selectOption('[data-testid=preset]', 'test_reuse_and_free');
    await page.waitForFunction(() => document.querySelector('[data-testid=lesson] b')?.textContent === 'test_reuse_and_free', null, { timeout: 10000 });
    const line = page.locator('.cm-line', { hasText: 'x4 = pad(x0, 2)' }).first();
    await line.click();
    await page.keyboard.press('End');
    await page.keyboard.press('Shift+Home');
    await page.keyboard.insertText('x4 = pad(x0, 6)');
    await page.waitForFunction(() => !location.hash, null, { timeout: 5000 }).catch(() => { throw new Error('the URL still names the preset after an edit'); });
    await page.waitForTimeout(800); // the browser's copy is written after a pause
    await page.reload();
    await page.waitForSelector('[data-testid=timeline]', { timeout: 20000 });
    await page.waitForFunction(() => [...document.querySelectorAll('.cm-content .cm-line')].some((l) => l.textContent === 'x4 = pad(x0, 6)'), null, { timeout: 10000 })
      .catch(async () => { throw new Error(`the edit is gone after a reload: ${(await lines(page)).slice(0, 8).join(' | ')}`); });
    assert((await page.textContent('[data-testid=lesson] b')) === 'test_reuse_and_free', 'the header lost the preset the edit was made from');
  });

  await check('Ctrl+Z after picking a preset brings back the graph before it and its header; redo the preset\'s', async () => {
    const lesson = () => page.evaluate(() => document.querySelector('[data-testid=lesson] b')?.textContent ?? '');
    await page.selectOption('[data-testid=preset]', 'test_reuse_and_free');
    await page.waitForFunction(() => document.querySelector('[data-testid=lesson] b')?.textContent === 'test_reuse_and_free', null, { timeout: 10000 });
    await page.selectOption('[data-testid=preset]', 'realloc_a');
    await page.waitForFunction(() => document.querySelector('[data-testid=lesson] b')?.textContent === 'realloc_a', null, { timeout: 10000 });
    await page.click('h1');
    await page.keyboard.press('Control+z');
    await page.waitForFunction(() => document.querySelector('[data-testid=lesson] b')?.textContent === 'test_reuse_and_free', null, { timeout: 10000 })
      .catch(async () => { throw new Error(`after Ctrl+Z the header says ${await lesson()}`); });
    await page.keyboard.press('Control+Shift+z');
    await page.waitForFunction(() => document.querySelector('[data-testid=lesson] b')?.textContent === 'realloc_a', null, { timeout: 10000 })
      .catch(async () => { throw new Error(`after redo the header says ${await lesson()}`); });
  });

  await check('a model card\'s URL is short and restores the card, its settings and its devices', async () => {
    await page.selectOption('[data-testid=card]', 'llama-3-8b');
    await page.waitForSelector('[data-testid=breakdown]', { timeout: 20000 });
    await page.selectOption('[data-testid=set-flash_attn]', '0');
    await page.click('[data-testid=devices-two-gpus]');
    await page.fill('[data-testid=set-ngl]', '24');
    await page.press('[data-testid=set-ngl]', 'Enter');
    await page.waitForFunction(() => /-ngl 24/.test(document.querySelector('[data-testid=breakdown]')?.dataset.args ?? ''), null, { timeout: 20000 });
    const args = await page.getAttribute('[data-testid=breakdown]', 'data-args');
    const url = page.url();
    assert(url.includes('card=llama-3-8b') && url.length < 400, `the URL is ${url.length} characters: ${url.slice(0, 200)}`);
    const p2 = await context.newPage();
    try {
      await p2.setViewportSize({ width: 1280, height: 800 });
      await p2.goto(url);
      await p2.waitForSelector('[data-testid=breakdown]', { timeout: 20000 });
      const args2 = await p2.getAttribute('[data-testid=breakdown]', 'data-args');
      assert(args2 === args, `restored: ${args2}, was: ${args}`);
      assert(await p2.inputValue('[data-testid=set-flash_attn]') === '0', 'the -fa setting was not restored');
      const summary = (await page.textContent('[data-testid=model-summary]')).trim();
      const summary2 = (await p2.textContent('[data-testid=model-summary]')).trim();
      assert(summary2 === summary && summary.length > 40, `the restored card reads "${summary2}", it read "${summary}"`);
      assert(await p2.inputValue('[data-testid=device-1-memory]') === '12 GiB', 'the second device was not restored');
      const want = await page.$$eval('[data-testid=buffer-types] tbody tr', (trs) => trs.map((t) => t.textContent));
      const got = await p2.$$eval('[data-testid=buffer-types] tbody tr', (trs) => trs.map((t) => t.textContent));
      assert(JSON.stringify(got) === JSON.stringify(want), 'the restored breakdown differs');
      await p2.screenshot({ path: path.join(OUT, 'restore-model-1280.png') });
    } finally {
      await p2.close();
    }
    await page.click('[data-testid=devices-clear]');
  });
}
