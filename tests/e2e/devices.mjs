// devices.mjs: e2e checks of the answer at the top and of the devices (called by e2e.mjs).
//
// The answer first: with a model card open, llama.cpp's breakdown table is in view without
// scrolling at 1280×800 and 1600×1000, the page is no wider than the window (document
// scrollWidth), and the right column is not left empty while the left one stacks. Devices: two
// CUDA GPUs with -ngl 20 -ts 3,1 on llama3-8b's header: every buffer type's model, context (and
// compute, where the page gives it) bytes equal `galloc model FILE ... --json` for the flags the
// page shows, and the table's MiB are the CLI's rounded down; the -ngl sweep has a point per
// -ngl 0 .. n_layer + 1, each equal to the CLI's breakdown at that -ngl; settings llama.cpp refuses
// clear the breakdown and mark the plan left on screen; -c typed (40960, 0 for the training context). Screenshots: build/e2e/devices-*.png.
import path from 'node:path';
import { execFileSync } from 'node:child_process';

const MIB = 1048576;

export async function devicesChecks({ page, check, assert, OUT, ROOT, CLI }) {
  const FILE = path.join(ROOT, 'tests/models-real/gguf/llama3-8b.meta.gguf');
  const cli = (args) => JSON.parse(execFileSync(CLI, ['model', FILE, ...args.split(' '), '--json'], { encoding: 'utf8' }));
  const layout = () => page.evaluate(() => {
    const box = (sel) => { const e = document.querySelector(sel); if (!e) return null; const r = e.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; };
    const lastBottom = (sel) => Math.max(0, ...[...document.querySelectorAll(`${sel} > *`)].map((e) => e.getBoundingClientRect().bottom));
    return { scrollWidth: document.documentElement.scrollWidth, scrollY: window.scrollY, w: innerWidth, h: innerHeight,
      table: box('[data-testid=breakdown]'), answer: box('[data-testid=memory-answer]'), left: lastBottom('.panes > .left'), right: lastBottom('.panes > .right') };
  });

  for (const [w, h] of [[1280, 800], [1600, 1000]]) {
    await check(`${w}×${h}: a card's breakdown in view without scrolling, no horizontal overflow, both columns used`, async () => {
      await page.setViewportSize({ width: w, height: h });
      await page.selectOption('[data-testid=card]', 'llama-3.1-8b');
      await page.waitForSelector('[data-testid=breakdown]', { timeout: 20000 });
      await page.evaluate(() => window.scrollTo(0, 0));
      const l = await layout();
      assert(l.table && l.table.top >= 0 && l.table.bottom <= h, `the breakdown table is at y ${l.table?.top}..${l.table?.bottom}, the window ${h} high`);
      assert(l.scrollWidth <= w, `the page is ${l.scrollWidth} px wide in a ${w} px window`);
      assert(l.right >= 0.6 * l.left, `the right column ends at ${l.right} px, the left at ${l.left}`);
      await page.screenshot({ path: path.join(OUT, `devices-answer-${w}.png`) });
      // a 70B card at its default settings: the same, and its screenshot
      await page.selectOption('[data-testid=card]', 'llama-3.1-70b');
      await page.waitForFunction(() => /llama-3\.1-70b|Llama-3\.1-70B/i.test(document.querySelector('[data-testid=model-summary]')?.textContent ?? '') && document.querySelector('[data-testid=breakdown]'), null, { timeout: 30000 });
      await page.evaluate(() => window.scrollTo(0, 0));
      const l70 = await layout();
      assert(l70.scrollWidth <= w && l70.table.bottom <= h, `70B: ${l70.scrollWidth} px wide, the table ends at y ${l70.table.bottom}`);
      await page.screenshot({ path: path.join(OUT, `devices-70b-${w}.png`) });
    });
  }

  await check('1280×800, a teaching preset: no horizontal overflow', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.selectOption('[data-testid=preset]', 'test_reuse_and_free');
    await page.waitForFunction(() => !document.querySelector('[data-testid=memory-answer]'), null, { timeout: 10000 });
    const l = await layout();
    assert(l.scrollWidth <= 1280, `the page is ${l.scrollWidth} px wide`);
  });

  await check('two GPUs, -ngl 20 -ts 3,1: every buffer type\'s bytes equal the CLI\'s --json', async () => {
    await page.setViewportSize({ width: 1600, height: 1000 });
    await page.setInputFiles('[data-testid=gguf-input]', FILE);
    await page.waitForSelector('[data-testid=model-summary][data-file="llama3-8b.meta.gguf"]', { timeout: 20000 });
    await page.click('[data-testid=devices-two-gpus]');
    await page.fill('[data-testid=set-ngl]', '20');
    await page.press('[data-testid=set-ngl]', 'Enter');
    await page.fill('[data-testid=set-ts]', '3,1');
    await page.press('[data-testid=set-ts]', 'Enter');
    await page.waitForFunction(() => /--device cuda:24576MiB --device cuda:12288MiB -ngl 20 -ts 3,1/.test(document.querySelector('[data-testid=breakdown]')?.dataset.args ?? ''), null, { timeout: 20000 });
    const args = await page.getAttribute('[data-testid=breakdown]', 'data-args');
    const want = cli(args);
    const got = await page.$$eval('[data-testid=buffer-types] tbody tr', (trs) => trs.map((t) => ({ name: t.cells[0].textContent, device: Number(t.dataset.device),
      model: Number(t.dataset.model), context: Number(t.dataset.context), compute: Number(t.dataset.compute), text: t.cells[4].textContent })));
    assert(got.length === want.buffer_types.length, `${got.length} buffer types on the page, the CLI ${want.buffer_types.length}`);
    for (const [i, b] of want.buffer_types.entries()) {
      const g = got[i];
      assert(g.name === b.name && g.device === b.device && g.model === b.model && g.context === b.context && g.compute === b.compute,
        `${b.name}: page ${JSON.stringify(g)}, CLI ${JSON.stringify(b)}`);
      const shown = `${String(b.compute).replace(/\B(?=(\d{3})+(?!\d))/g, ',')} B`;
      assert(g.text === shown, `${b.name} compute shown as '${g.text}', the CLI's ${shown}`);
    }
    // the table: per device the CLI's bytes in MiB rounded down
    for (const d of [0, 1]) {
      const bt = want.buffer_types.filter((b) => b.device === d);
      const cells = await page.$$eval(`[data-testid=breakdown-${d}] td`, (tds) => tds.map((t) => t.textContent));
      assert(cells[3] === String(Math.floor(bt.reduce((n, b) => n + b.model, 0) / MIB)), `device ${d} model column ${cells[3]}`);
      assert(cells[4] === String(Math.floor(bt.reduce((n, b) => n + b.context, 0) / MIB)), `device ${d} context column ${cells[4]}`);
      assert(cells[5] === String(Math.floor(bt.reduce((n, b) => n + b.compute, 0) / MIB)), `device ${d} compute column ${cells[5]}`);
    }
    assert((await page.getAttribute('[data-testid=bar-0]', 'data-fits')) !== 'false', 'CUDA0 (24 GiB) said not to fit at -ngl 20');
  });

  await check('the -ngl sweep: a point per -ngl 0 .. 33 and device, each the CLI\'s breakdown at that -ngl; screenshot of the two-GPU setup', async () => {
    await page.selectOption('[data-testid=device-sweep-axis]', 'ngl');
    await page.click('[data-testid=device-sweep-run]');
    await page.waitForSelector('[data-testid=device-sweep-plot]', { timeout: 120000 });
    const pts = await page.$$eval('[data-testid=device-sweep-plot] .device-sweep-point', (els) => els.map((e) => ({ x: Number(e.dataset.x), device: Number(e.dataset.device), bytes: Number(e.dataset.bytes) })));
    const xs = [...new Set(pts.map((p) => p.x))];
    assert(xs.length === 34 && xs[0] === 0 && xs[33] === 33, `-ngl ${xs[0]} .. ${xs[xs.length - 1]} (${xs.length} points), llama3-8b has 32 layers and the output`);
    const args = await page.getAttribute('[data-testid=breakdown]', 'data-args');
    for (const x of [0, 7, 20, 33]) {
      const want = cli(args.replace(/-ngl \d+/, `-ngl ${x}`));
      for (const d of [0, 1, -1]) {
        const p = pts.find((q) => q.x === x && q.device === d);
        const bt = want.buffer_types.filter((b) => (d < 0 ? b.device < 0 : b.device === d));
        const bytes = bt.reduce((n, b) => n + b.model + b.context + b.compute, 0);
        assert(p.bytes === bytes, `-ngl ${x} device ${d}: page ${p.bytes}, CLI ${bytes}`);
      }
    }
    // the CLI's --sweep ngl: per -ngl the MiB per device and whether it fits; the page's the same
    const table = execFileSync(CLI, ['model', FILE, ...args.split(' '), '--sweep', 'ngl'], { encoding: 'utf8' }).trim().split('\n').slice(1)
      .map((l) => l.trim().split(/\s+/)).map((c) => ({ x: Number(c[0]), mib: [Number(c[1]), Number(c[3]), Number(c[5])], fits: c[7] === 'yes' }));
    assert(table.length === 34, `the CLI's sweep has ${table.length} rows`);
    for (const row of table) {
      for (const [k, d] of [0, 1, -1].entries()) {
        const p = pts.find((q) => q.x === row.x && q.device === d);
        assert(Math.floor(p.bytes / MIB) === row.mib[k], `-ngl ${row.x} device ${d}: page ${Math.floor(p.bytes / MIB)} MiB, CLI ${row.mib[k]} MiB`);
      }
      const fits = await page.getAttribute(`[data-testid=device-sweep-plot] .device-sweep-point[data-x="${row.x}"]`, 'data-fits');
      assert(fits === String(row.fits), `-ngl ${row.x}: the page says fits ${fits}, the CLI ${row.fits}`);
    }
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: path.join(OUT, 'devices-two-gpus.png') });
  });

  await check('the -c sweep: 1024 .. the training context (8192), as the CLI\'s --sweep c', async () => {
    await page.selectOption('[data-testid=device-sweep-axis]', 'c');
    await page.click('[data-testid=device-sweep-run]');
    await page.waitForSelector('[data-testid=device-sweep-plot][data-axis=c]', { timeout: 120000 });
    const xs = await page.$$eval('[data-testid=device-sweep-plot] .device-sweep-point[data-device="0"]', (els) => els.map((e) => Number(e.dataset.x)));
    const args = await page.getAttribute('[data-testid=breakdown]', 'data-args');
    const cliXs = execFileSync(CLI, ['model', FILE, ...args.split(' '), '--sweep', 'c'], { encoding: 'utf8' }).trim().split('\n').slice(1).map((l) => Number(l.trim().split(/\s+/)[0]));
    assert(JSON.stringify(xs) === JSON.stringify(cliXs), `page -c ${xs.join(', ')}; CLI -c ${cliXs.join(', ')}`);
    await page.selectOption('[data-testid=device-sweep-axis]', 'ngl');
  });

  await check('settings llama.cpp refuses: the breakdown cleared, the plan left on screen marked as the previous settings\'', async () => {
    await page.selectOption('[data-testid=set-flash_attn]', '0');
    await page.waitForFunction(() => /-fa off/.test(document.querySelector('[data-testid=breakdown]')?.dataset.args ?? ''), null, { timeout: 20000 });
    assert(!(await page.isVisible('[data-testid=plan-stale]')), 'marked stale while the plan is of the settings shown');
    await page.selectOption('[data-testid=set-type_v]', 'q8_0');
    await page.waitForSelector('[data-testid=plan-stale]', { timeout: 20000 });
    assert(await page.locator('[data-testid=breakdown]').count() === 0, 'a breakdown of other settings still shown');
    assert((await page.textContent('[data-testid=breakdown-error]')).length > 0, 'no reason given for the missing breakdown');
    assert((await page.textContent('[data-testid=plan-stale]')).includes('-fa off'), 'the note does not name the settings of the plan');
    await page.screenshot({ path: path.join(OUT, 'devices-refused.png') });
    await page.selectOption('[data-testid=set-type_v]', 'f16');
    await page.waitForFunction(() => !document.querySelector('[data-testid=plan-stale]') && document.querySelector('[data-testid=breakdown]'), null, { timeout: 20000 });
    await page.click('[data-testid=devices-clear]');
  });

  await check('typed settings: -c 40960 and -c 0 (the training context, 8192) as llama.cpp takes them; nonsense refused', async () => {
    const typeCtx = async (v) => { await page.fill('[data-testid=set-n_ctx]', v); await page.press('[data-testid=set-n_ctx]', 'Enter'); };
    const hint = () => page.evaluate(() => document.querySelector('[data-testid=compute-sizes]')?.nextElementSibling?.textContent ?? '');
    await page.selectOption('[data-testid=set-flash_attn]', '1');
    await typeCtx('40960');
    await page.waitForFunction(() => /^-c 40960 /.test(document.querySelector('[data-testid=breakdown]')?.dataset.args ?? ''), null, { timeout: 20000 });
    await page.waitForFunction(() => /n_ctx 40960 /.test(document.querySelector('[data-testid=compute-sizes]')?.nextElementSibling?.textContent ?? ''), null, { timeout: 20000 })
      .catch(async () => { throw new Error(`-c 40960: the sizes say ${await hint()}`); });
    const ctx40960 = cli('-c 40960 -b 2048 -ub 512 -fa on').buffer_types[0];
    assert(Number(await page.getAttribute('[data-testid=buft-CPU]', 'data-context')) === ctx40960.context, 'the KV cache at -c 40960 is not the CLI\'s');
    await typeCtx('0');
    await page.waitForFunction(() => /n_ctx 8192 /.test(document.querySelector('[data-testid=compute-sizes]')?.nextElementSibling?.textContent ?? ''), null, { timeout: 20000 })
      .catch(async () => { throw new Error(`-c 0: the sizes say ${await hint()}`); });
    await typeCtx('4k');
    await page.waitForSelector('[data-testid=set-n_ctx-error]', { timeout: 5000 });
    assert(/^-c 0 /.test(await page.getAttribute('[data-testid=breakdown]', 'data-args')), 'a refused -c changed the settings');
    await typeCtx('4096');
    await page.waitForFunction(() => /^-c 4096 /.test(document.querySelector('[data-testid=breakdown]')?.dataset.args ?? ''), null, { timeout: 20000 });
  });
}
