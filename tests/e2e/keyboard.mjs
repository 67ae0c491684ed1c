// keyboard.mjs: e2e checks of the keyboard (called by e2e.mjs): the graph view and the timeline
// take focus (a tabindex attribute the browser reads: an SVG's camel-case tabIndex is not one),
// Tab reaches them, a click on a node focuses the view so Del removes the clicked tensor, arrows
// move the selection in the timeline and Esc clears it.
export async function keyboardChecks({ page, check, assert }) {
  const editorNames = () => page.evaluate(() => [...document.querySelectorAll('.cm-content .cm-line')].map((l) => l.textContent).filter((t) => / = /.test(t) && !t.startsWith('@')).map((t) => t.split(' = ')[0]));
  await check('keyboard: graph view and timeline focusable and in the Tab order; Del after clicking a node acts on it; arrows and Esc in the timeline', async () => {
    await page.selectOption('[data-testid=preset]', 'test_reuse_and_free');
    await page.waitForSelector('[data-testid=dag] [data-node]', { timeout: 10000 });
    for (const id of ['dag', 'timeline']) {
      const t = await page.evaluate((i) => document.querySelector(`[data-testid=${i}]`).tabIndex, id);
      assert(t === 0, `the ${id} has tabIndex ${t}: not focusable`);
    }
    // Tab from the element before each reaches it
    await page.focus('[data-testid=dag]');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    assert(await page.evaluate(() => document.activeElement?.dataset?.testid) === 'dag', 'Tab does not reach the graph view');
    // click a node, press Del: it is gone from the text
    const node = page.locator('[data-testid=dag] [data-node]').last();
    const i = Number(await node.getAttribute('data-node'));
    const name = await node.locator('.n-name').textContent();
    assert((await editorNames()).includes(name), `no line for ${name}`);
    await node.click();
    assert(await page.evaluate(() => document.activeElement?.dataset?.testid) === 'dag', 'a click on a node does not focus the graph view');
    await page.keyboard.press('Delete'); // used by others: refused, naming them
    await page.waitForFunction((n) => (document.querySelector('[data-testid=notice]')?.textContent ?? '').includes(`${n} is used by`), name, { timeout: 5000 })
      .catch(() => { throw new Error(`Del on ${name} said nothing`); });
    await page.keyboard.press('Shift+Delete'); // with its dependents
    try {
      await page.waitForFunction((n) => ![...document.querySelectorAll('.cm-content .cm-line')].some((l) => l.textContent.startsWith(`${n} = `)), name, { timeout: 5000 });
    } catch { throw new Error(`Del after clicking ${name} (tensor ${i}) did not remove it (Shift+Del): ${JSON.stringify(await editorNames())}`); }
    await page.keyboard.press('Control+z');
    // the timeline: focus, → selects the first tensor, → the next, Esc clears
    await page.focus('[data-testid=timeline]');
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('[data-testid=inspector] .insp-head', { timeout: 5000 }).catch(() => { throw new Error('→ in the timeline selected nothing'); });
    const first = await page.textContent('[data-testid=inspector] .insp-head');
    await page.keyboard.press('ArrowRight');
    await page.waitForFunction((f) => document.querySelector('[data-testid=inspector] .insp-head')?.textContent !== f, first, { timeout: 5000 }).catch(() => { throw new Error('a second → did not move the selection'); });
    await page.keyboard.press('Escape');
    await page.waitForFunction(() => !document.querySelector('[data-testid=inspector] .insp-head'), null, { timeout: 5000 }).catch(() => { throw new Error('Esc did not clear the selection'); });
  });
}
