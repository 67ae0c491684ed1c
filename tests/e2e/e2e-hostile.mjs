// e2e-hostile.mjs: the UI keeps the user's work on damaged and huge input (issue 15), called
// from e2e.mjs: damaged share links show an error and the default graph; an empty paste
// replaces nothing and Ctrl+Z brings back a replaced graph; a ggml_cast tensor imports and plans
// as the CLI plans it; huge links and imports (300,000 lines, 300,000 tensors) leave the page
// answering: the link's text is parsed while the page draws frames (in the worker), the import's
// editor text is written while it draws (in slices), both plan as the CLI plans, the text exported
// is the chain's (times and the longest main-thread task reported, not asserted: tests do not time
// things). The huge ones run only with big (E2E_BIG=1, make test-big); otherwise they are skipped.
import lzString from 'lz-string';
import { readFileSync } from 'node:fs';

const { compressToEncodedURIComponent } = lzString; // a CommonJS module under Node

const link = (payload) => `#g=${compressToEncodedURIComponent(JSON.stringify(payload))}`;

/**
 * @param {{page: import('playwright-core').Page, context: any, check: Function, assert: Function,
 *   cliPlan: Function, serverUrl: string, consoleErrors: string[]}} ctx
 * @returns {Promise<string[]>} times measured, for the report
 */
export async function hostileChecks({ page, context, check, skip, big, assert, cliPlan, serverUrl, consoleErrors }) {
  const times = [];
  // the huge links and imports (a minute or more each under load): only with big (make test-big), else named as skipped
  const bigCheck = big ? check : (name) => skip(name, 'make test-big runs it');
  const total0 = (p) => p.evaluate(() => document.querySelector('[data-testid=total-0]')?.getAttribute('data-bytes') ?? null);
  const noticeText = (p) => p.evaluate(() => document.querySelector('[data-testid=notice]')?.textContent ?? '');
  /** a fresh page at a URL fragment (a new page: a hash change alone would not reload) */
  async function openAt(hash) {
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    await p.goto(`${serverUrl}${hash}`);
    return p;
  }

  const good = link({ v: 1, t: 'x = input(f32, 4)\ny = scale(x)\noutput(y)\n' });
  const damaged = [
    ['#g=', '#g='], ['#g=!!!', '#g=!!!'], ['truncated', good.slice(0, Math.floor(good.length / 2))],
    ['version 2', link({ v: 2, t: 'x = input(f32, 4)\n' })], ['a non-array field', link({ v: 1, p: 'test_reuse_and_free', b: 'x' })],
  ];
  await check('damaged share links: the error stays on screen, with the default graph', async () => {
    for (const [what, hash] of damaged) {
      const p = await openAt(hash);
      try {
        await p.waitForFunction(() => document.querySelector('[data-testid=notice].error')?.textContent.includes('link')
          && document.querySelector('[data-testid=total-0]'), null, { timeout: 20000 });
        await p.waitForTimeout(500); // nothing later clears it
        assert((await noticeText(p)).includes('instead'), `${what}: the notice does not say which graph is shown: ${await noticeText(p)}`);
        assert(await p.locator('[data-testid=notice].error').count() === 1, `${what}: the error went away`);
      } finally { await p.close(); }
    }
  });

  await check('a link naming an unknown preset: the error and the default graph, saying so', async () => {
    const p = await openAt(link({ v: 1, p: 'no-such-preset', b: [] }));
    try {
      await p.waitForFunction(() => /no-such-preset.*instead/.test(document.querySelector('[data-testid=notice].error')?.textContent ?? '')
        && document.querySelector('[data-testid=total-0]'), null, { timeout: 20000 });
    } finally { await p.close(); }
    await page.bringToFront();
  });

  await check('paste an empty box: nothing is replaced; Ctrl+Z brings back a replaced graph', async () => {
    await page.selectOption('[data-testid=preset]', 'test_reuse_and_free');
    await page.waitForFunction(() => document.querySelector('[data-testid=total-0]'), null, { timeout: 10000 });
    const before = await total0(page);
    const textBefore = await page.evaluate(() => [...document.querySelectorAll('.cm-content .cm-line')].map((l) => l.textContent).join('\n'));
    await page.click('text=Paste…');
    await page.fill('[data-testid=paste-text]', '');
    await page.click('[data-testid=paste-import]');
    await page.waitForFunction(() => /nothing to import/.test(document.querySelector('[data-testid=notice].error')?.textContent ?? ''), null, { timeout: 5000 });
    assert(await total0(page) === before, 'the plan changed after an empty import');
    // a real replacement, then Ctrl+Z with the focus outside the editor
    const doc = { tensors: [{ name: 'p', op: 'NONE', type: 'f32', ne: [1000], flags: ['input'] },
      { name: 'q', op: 'SCALE', type: 'f32', ne: [1000], src: [0], flags: ['output'] }], outputs: [1] };
    await page.fill('[data-testid=paste-text]', JSON.stringify(doc));
    await page.click('[data-testid=paste-import]');
    const want = String(cliPlan(doc).buffers[0].size);
    await page.waitForFunction((v) => document.querySelector('[data-testid=total-0]')?.getAttribute('data-bytes') === v, want, { timeout: 10000 });
    assert(want !== before, 'the two graphs have the same total: the check proves nothing');
    await page.click('h1');
    await page.keyboard.press('Control+z');
    await page.waitForFunction((v) => document.querySelector('[data-testid=total-0]')?.getAttribute('data-bytes') === v, before, { timeout: 10000 });
    const textAfter = await page.evaluate(() => [...document.querySelectorAll('.cm-content .cm-line')].map((l) => l.textContent).join('\n'));
    assert(textAfter === textBefore, 'Ctrl+Z did not bring back the text');
    await page.keyboard.press('Control+Shift+z'); // and redo
    await page.waitForFunction((v) => document.querySelector('[data-testid=total-0]')?.getAttribute('data-bytes') === v, want, { timeout: 10000 });
  });

  await check('a ggml_cast tensor (CPY whose src[1] is itself) imports through the file input and plans as the CLI', async () => {
    const doc = { tensors: [{ name: 'a', op: 'NONE', type: 'f32', ne: [64, 2], flags: ['input'] },
      { name: 'a (f16)', op: 'CPY', type: 'f16', ne: [64, 2], src: [0, 1] },
      { name: 's', op: 'SCALE', type: 'f16', ne: [64, 2], src: [1], flags: ['output'] }], outputs: [2] };
    await page.setInputFiles('[data-testid=file-input]', { name: 'cast.graph.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(doc, null, 2)) });
    const want = String(cliPlan(doc).buffers[0].size);
    await page.waitForFunction((v) => document.querySelector('[data-testid=total-0]')?.getAttribute('data-bytes') === v, want, { timeout: 10000 });
    assert((await noticeText(page)).includes('imported cast.graph.json'), `notice: ${await noticeText(page)}`);
  });

  // huge input: times to the first error / the plan, and the page still answering
  const answers = async (p, what) => {
    const t0 = Date.now();
    await p.selectOption('[data-testid=preset]', 'test_reuse_and_free');
    await p.waitForFunction(() => document.querySelector('[data-testid=lesson]')?.textContent.includes('test_reuse_and_free'), null, { timeout: 120000 });
    times.push(`${what}: a preset picked afterwards shown in ${Date.now() - t0} ms`);
  };
  await bigCheck('a share link of 200,000 unknown-op lines: the first errors shown, the page answers', async () => {
    const t = `x = input(f32, 4)\n${'y = frobnicate(x)\n'.repeat(200000)}`; // a link of a few KB
    const hash = link({ v: 1, t });
    const t0 = Date.now();
    const p = await openAt(hash);
    try {
      await p.waitForFunction(() => /line 2: unknown op 'frobnicate'/.test(document.querySelector('[data-testid=text-error]')?.textContent ?? ''), null, { timeout: 180000 });
      times.push(`200k unknown-op lines (link of ${hash.length.toLocaleString()} characters): first error shown ${Date.now() - t0} ms after opening`);
      await answers(p, '200k unknown-op lines');
    } finally { await p.close(); }
  });
  // the 300k link and import: the page's longest task (PerformanceObserver 'longtask') and frames
  // (requestAnimationFrame) recorded from the page's first script on, reported, never asserted as
  // times; what is asserted: frames were drawn while the text was parsed (so in the worker) and
  // while the imported graph's text was written (so in slices), and the plan and text are right
  const probe = () => {
    const pr = { tasks: [], parsingFrames: 0, pendingFrames: 0, planAt: null, frames: 0 };
    window.galloc_probe = pr;
    try {
      new PerformanceObserver((l) => { for (const e of l.getEntries()) pr.tasks.push([e.startTime, e.duration]); }).observe({ type: 'longtask', buffered: true });
    } catch { pr.tasks = null; } // no longtask entries in this browser
    const tick = () => {
      pr.frames++;
      if (document.querySelector('[data-testid=text-parsing]')) pr.parsingFrames++;
      if (document.querySelector('[data-testid=text-pending]')) pr.pendingFrames++;
      if (pr.planAt === null && pr.watchPlan && pr.watchPlan()) pr.planAt = performance.now(); // (t: when the frame began, maybe before a long task)
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  };
  /** the longest task (ms) and the count of tasks of 200 ms and more that started in [from, to) */
  const longest = (p, from, to) => p.evaluate(([a, b]) => {
    const ts = (window.galloc_probe.tasks ?? []).filter(([s]) => s >= a && s < b);
    return { max: Math.max(0, ...ts.map(([, d]) => d)), over200: ts.filter(([, d]) => d >= 200).length, known: window.galloc_probe.tasks !== null };
  }, [from, to]);
  const taskText = (t) => (t.known ? `longest main-thread task ${t.max.toFixed(0)} ms (${t.over200} tasks >= 200 ms)` : 'no longtask entries in this browser');
  const exportedText = async (p) => {
    const [dl] = await Promise.all([p.waitForEvent('download', { timeout: 120000 }), p.selectOption('[data-testid=export]', 'text')]);
    return readFileSync(await dl.path(), 'utf8');
  };
  const openProbed = async (hash) => {
    const p = await context.newPage();
    p.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    await p.addInitScript(probe);
    await p.addInitScript(() => { window.galloc_probe.watchPlan = () => document.querySelector('[data-testid=total-0]') !== null; });
    await p.goto(`${serverUrl}${hash}`);
    return p;
  };
  // the 300k chain as a document: what both the link's text and the imported file say (y = input,
  // then 300,000 times y = scale(y), the last one the output), planned by the CLI
  const n = 300000;
  const chain = { tensors: [{ name: 'y', op: 'NONE', type: 'f32', ne: [4], flags: ['input'] }], outputs: [n] };
  for (let i = 1; big && i <= n; i++) chain.tensors.push({ name: 'y', op: 'SCALE', type: 'f32', ne: [4], src: [i - 1] });
  const chainPlan = big ? cliPlan(chain) : null;
  const wantTotal = big ? String(chainPlan.buffers[0].size) : null;
  const planFacts = (p) => p.evaluate(() => ({ stepMax: document.querySelector('[data-testid=step-slider]')?.getAttribute('max') ?? null,
    inplace: document.querySelector('[data-testid=inplace-all]')?.textContent ?? null }));
  await bigCheck('a share link of 300,000 valid lines: parsed in the worker (the page draws meanwhile), planned as the CLI plans it', async () => {
    const t = `y = input(f32, 4)\n${'y = scale(y)\n'.repeat(n)}output(y)\n`; // each y the one above
    const hash = link({ v: 1, t });
    const p = await openProbed(hash);
    try {
      // a text link loads no preset first: a total on screen is this graph's plan
      await p.waitForFunction(() => window.galloc_probe.planAt !== null, null, { timeout: 180000, polling: 100 });
      assert(await p.locator('[data-testid=text-error]').count() === 0, 'the valid text shows errors');
      assert(await total0(p) === wantTotal, `total ${await total0(p)}, the CLI plans ${wantTotal}`);
      const facts = await planFacts(p);
      assert(facts.stepMax === String(chainPlan.n_steps - 1) && facts.inplace === String(chainPlan.n_inplace),
        `steps to ${facts.stepMax} and ${facts.inplace} in place on screen; the CLI plans ${chainPlan.n_steps} steps, ${chainPlan.n_inplace} in place`);
      const pr = await p.evaluate(() => ({ planAt: window.galloc_probe.planAt, parsingFrames: window.galloc_probe.parsingFrames }));
      assert(pr.parsingFrames >= 3, `${pr.parsingFrames} frames drawn while the text was parsed: the parse blocked the page (not in the worker)`);
      const tasks = await longest(p, 0, pr.planAt);
      times.push(`300k-line link (${hash.length.toLocaleString()} characters): plan on screen ${pr.planAt.toFixed(0)} ms after navigation, ${taskText(tasks)}; ${pr.parsingFrames} frames drawn during the parse`);
      await answers(p, '300k-line link');
    } finally { await p.close(); }
    await page.bringToFront();
  });
  await bigCheck('a 300,000-tensor document imported through the file input: planned as the CLI plans it, its text written in slices (the page draws meanwhile), exported whole', async () => {
    const p = await openProbed('');
    try {
      await p.waitForFunction(() => document.querySelector('[data-testid=total-0]'), null, { timeout: 60000 });
      // the file is made in the page (handing 27 MB to setInputFiles would time the test harness)
      const ms = await p.evaluate(async (count) => {
        const parts = ['{"tensors": [{"name": "y", "op": "NONE", "type": "f32", "ne": [4], "flags": ["input"]}'];
        for (let i = 1; i <= count; i++) parts.push(`,\n{"name": "y", "op": "SCALE", "type": "f32", "ne": [4], "src": [${i - 1}]}`);
        parts.push(`], "outputs": [${count}]}\n`);
        const dt = new DataTransfer();
        dt.items.add(new File(parts, 'chain.graph.json', { type: 'application/json' }));
        const input = document.querySelector('[data-testid=file-input]');
        input.files = dt.files;
        const pr = window.galloc_probe;
        pr.planAt = null;
        pr.pendingFrames = 0;
        pr.watchPlan = () => /imported chain/.test(document.querySelector('[data-testid=notice]')?.textContent ?? '');
        const t0 = performance.now();
        input.dispatchEvent(new Event('change', { bubbles: true }));
        await new Promise((ok) => { const tick = () => (pr.planAt !== null ? ok() : setTimeout(tick, 5)); tick(); });
        await new Promise((ok) => { const tick = () => (document.querySelector('[data-testid=text-pending]') ? setTimeout(tick, 20) : ok()); tick(); });
        return { t0, plan: pr.planAt, text: performance.now(), pendingFrames: pr.pendingFrames };
      }, n);
      assert(await total0(p) === wantTotal, `total ${await total0(p)}, the CLI plans ${wantTotal}`);
      const facts = await planFacts(p);
      assert(facts.stepMax === String(chainPlan.n_steps - 1) && facts.inplace === String(chainPlan.n_inplace),
        `steps to ${facts.stepMax} and ${facts.inplace} in place on screen; the CLI plans ${chainPlan.n_steps} steps, ${chainPlan.n_inplace} in place`);
      assert(ms.pendingFrames >= 5, `${ms.pendingFrames} frames drawn while the editor text was written: written in one go, not in slices`);
      const toPlan = await longest(p, ms.t0, ms.plan);
      const toText = await longest(p, ms.plan, ms.text);
      times.push(`300k-tensor import (27 MB): plan on screen ${(ms.plan - ms.t0).toFixed(0)} ms after the file was given (${taskText(toPlan)}), its editor text ${(ms.text - ms.t0).toFixed(0)} ms (${taskText(toText)} while it was written; ${ms.pendingFrames} frames drawn meanwhile)`);
      // the text the editor holds (Export → text): the chain as a user would write it
      const want = `@name ""\n@buffer host align=32\n\ny = input(f32, 4)\n${'y = scale(y)\n'.repeat(n)}`;
      const got = await exportedText(p);
      assert(got === want, `the exported text (${got.length} characters) is not the chain's (${want.length}): ${JSON.stringify(got.slice(0, 120))}`);
      await answers(p, '300k-tensor import');
    } finally { await p.close(); }
    await page.bringToFront();
  });
  return times;
}
