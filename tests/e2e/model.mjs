// model.mjs: e2e checks of the model page (called by e2e.mjs with its page).
//
// Drop a real metadata-only GGUF (tests/models-real/gguf) through the file input, set llama.cpp's
// flags as the manifest row says, and read the compute buffer size the page reports: it must be
// the one llama.cpp logged (manifest.tsv); the graph, the plan and the timeline follow (the
// buffer table's total is the plan's). Pick a card. The sweep plots: one point per context (or
// per micro-batch) and flash-attention setting, each equal to what the native CLI prints for the
// same flags. A sparse
// 8 GiB file loads while reading at most 1 MiB of it (the time it took is printed, not asserted).
// Screenshots: build/e2e/model-*.png.
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, truncateSync } from 'node:fs';
import { tmpdir } from 'node:os';

const GGUF_DIR = 'tests/models-real/gguf';

/** the manifest rows (llama.cpp's logged sizes), by column name */
function manifest(ROOT) {
  const [head, ...rows] = readFileSync(path.join(ROOT, 'tests/models-real/manifest.tsv'), 'utf8').trim().split('\n').map((l) => l.split('\t'));
  return rows.map((r) => Object.fromEntries(head.map((h, i) => [h, r[i]])));
}

/** the CLI's "X compute buffer size = N MiB" lines for a model and flags */
function cliComputeLines(CLI, args) {
  const r = execFileSync('sh', ['-c', `"$0" model "$@" -o /dev/null 2>&1 >/dev/null`, CLI, ...args], { encoding: 'utf8' });
  return r.split('\n').filter((l) => / compute buffer size = /.test(l)).map((l) => l.trim());
}

export async function modelChecks({ page, check, assert, OUT, ROOT, CLI }) {
  const times = [];
  const rows = manifest(ROOT);
  const setFlag = async (key, value) => { // -c, -b, -ub and -np are typed, the others picked
    const sel = `[data-testid=set-${key}]`;
    if (await page.evaluate((q) => document.querySelector(q)?.tagName, sel) === 'INPUT') {
      await page.fill(sel, String(value));
      await page.press(sel, 'Enter');
    } else {
      await page.selectOption(sel, String(value));
    }
  };
  const computeText = () => page.textContent('[data-testid=compute-sizes]');
  const waitCompute = async (want, what) => {
    try {
      await page.waitForFunction((w) => document.querySelector('[data-testid=compute-sizes]')?.textContent.includes(w), want, { timeout: 20000 });
    } catch { throw new Error(`${what}: the page says "${await computeText().catch(() => '(nothing)')}", llama.cpp logged "${want}"`); }
  };

  for (const [model, fa] of [['llama3-8b', '0'], ['llama3-8b', '1'], ['gemma3-tiny', '0']]) {
    const row = rows.find((r) => r.model === model && r.fa === fa && r.graph_kind === 'prompt' && r.type_k === 'f16' && r.n_seq === '1');
    await check(`drop ${model}.meta.gguf, -c ${row.n_ctx} -ub ${row.n_ubatch} -fa ${fa === '1' ? 'on' : 'off'}: the page reports llama.cpp's ${row.llamacpp_compute_mib} MiB`, async () => {
      await page.setInputFiles('[data-testid=gguf-input]', path.join(ROOT, GGUF_DIR, `${model}.meta.gguf`));
      await page.waitForSelector(`[data-testid=model-summary][data-file="${model}.meta.gguf"]`, { timeout: 20000 });
      await setFlag('n_ctx', row.n_ctx);
      await setFlag('n_ubatch', row.n_ubatch);
      await setFlag('n_batch', row.n_batch);
      await setFlag('flash_attn', row.fa);
      await waitCompute(`CPU compute buffer size = ${row.llamacpp_compute_mib} MiB`, model);
      // the plan on screen is the graph of these settings: its nodes are the manifest's
      const nodes = await page.evaluate(() => document.querySelector('[data-testid=compute-sizes]')?.nextElementSibling?.textContent ?? '');
      assert(nodes.includes(`${row.nodes} nodes`), `the page's graph has not ${row.nodes} nodes: ${nodes}`);
      await page.screenshot({ path: path.join(OUT, `model-${model}-fa${fa}.png`), fullPage: true });
    });
  }

  await check('pick a card: its settings line and sizes equal the CLI\'s', async () => {
    const first = await page.evaluate(() => [...document.querySelectorAll('[data-testid=card] option')].map((o) => o.value).filter(Boolean));
    assert(first.length >= 5, `only ${first.length} cards in the menu`);
    const card = first.includes('qwen3-30b-a3b') ? 'qwen3-30b-a3b' : first[0];
    await page.selectOption('[data-testid=card]', card);
    await setFlag('n_ctx', 8192);
    await setFlag('flash_attn', 1);
    const want = cliComputeLines(CLI, ['--card', card, '-c', '8192', '-b', '512', '-ub', '512', '-fa', 'on']);
    assert(want.length > 0, 'the CLI printed no compute buffer line');
    for (const w of want) await waitCompute(w, `card ${card}`);
    assert((await page.textContent('[data-testid=model-cmd]')).includes('-c 8192 -b 512 -ub 512 -fa on'), 'the command line shown is not the settings');
  });

  await check('sweep: one point per context and fa setting, each equal to the CLI\'s size', async () => {
    await page.setInputFiles('[data-testid=gguf-input]', path.join(ROOT, GGUF_DIR, 'qwen3-tiny.meta.gguf'));
    await page.waitForSelector('[data-testid=model-summary][data-file="qwen3-tiny.meta.gguf"]', { timeout: 20000 });
    await setFlag('n_ubatch', 512);
    await setFlag('n_batch', 512);
    const t0 = performance.now();
    await page.click('[data-testid=sweep-run]');
    await page.waitForSelector('[data-testid=sweep-plot]', { timeout: 120000 });
    times.push(`sweep of qwen3-tiny, 18 points, in the worker: ${(performance.now() - t0).toFixed(0)} ms`);
    const points = await page.$$eval('[data-testid=sweep-plot] .sweep-point', (els) => els.map((e) => ({ ctx: e.dataset.ctx, fa: e.dataset.fa, ub: e.dataset.ub, bytes: Number(e.dataset.bytes) })));
    assert(points.length === 18, `${points.length} points, expected 9 contexts x fa off/on = 18`);
    for (const p of points) {
      const lines = cliComputeLines(CLI, [path.join(ROOT, GGUF_DIR, 'qwen3-tiny.meta.gguf'), '-c', p.ctx, '-b', '512', '-ub', p.ub, '-fa', p.fa === '1' ? 'on' : 'off']);
      const mib = lines.map((l) => Number(/= *([\d.]+) MiB/.exec(l)[1])).reduce((a, b) => a + b, 0);
      assert((p.bytes / 1048576).toFixed(2) === mib.toFixed(2), `-c ${p.ctx} -fa ${p.fa}: plot ${(p.bytes / 1048576).toFixed(2)} MiB, CLI ${mib.toFixed(2)} MiB`);
    }
    await page.locator('[data-testid=sweep-plot]').screenshot({ path: path.join(OUT, 'model-sweep.png') });
  });

  await check('sweep along the micro-batch: one point per -ub and fa setting at -c 4096, each equal to the CLI\'s size', async () => {
    if ((await page.inputValue('[data-testid=set-n_ctx]')) !== '4096') {
      const before = await page.textContent('[data-testid=model-cmd]');
      await setFlag('n_ctx', 4096);
      await page.waitForFunction((c) => document.querySelector('[data-testid=model-cmd]').textContent !== c, before, { timeout: 20000 });
    }
    await page.selectOption('[data-testid=sweep-axis]', 'n_ubatch');
    await page.click('[data-testid=sweep-run]');
    await page.waitForSelector('[data-testid=sweep-plot][data-axis=n_ubatch]', { timeout: 120000 });
    const points = await page.$$eval('[data-testid=sweep-plot] .sweep-point', (els) => els.map((e) => ({ ctx: e.dataset.ctx, fa: e.dataset.fa, ub: e.dataset.ub, bytes: Number(e.dataset.bytes) })));
    assert(points.length === 14, `${points.length} points, expected 7 micro-batches x fa off/on = 14`);
    assert(new Set(points.map((p) => p.ub)).size === 7 && points.every((p) => p.ctx === '4096'), 'not every micro-batch at -c 4096');
    for (const p of points) {
      const lines = cliComputeLines(CLI, [path.join(ROOT, GGUF_DIR, 'qwen3-tiny.meta.gguf'), '-c', p.ctx, '-b', String(Math.max(512, Number(p.ub))), '-ub', p.ub, '-fa', p.fa === '1' ? 'on' : 'off']);
      const mib = lines.map((l) => Number(/= *([\d.]+) MiB/.exec(l)[1])).reduce((a, b) => a + b, 0);
      assert((p.bytes / 1048576).toFixed(2) === mib.toFixed(2), `-ub ${p.ub} -fa ${p.fa}: plot ${(p.bytes / 1048576).toFixed(2)} MiB, CLI ${mib.toFixed(2)} MiB`);
    }
    const label = await page.textContent('[data-testid=sweep-plot] .axis-label');
    assert(/micro-batch/.test(label), `the x axis says "${label}"`);
    await page.locator('[data-testid=sweep-plot]').screenshot({ path: path.join(OUT, 'model-sweep-ubatch.png') });
  });

  await check('an 8 GiB sparse .gguf loads reading at most 1 MiB of it', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'galloc-gguf-'));
    try {
      const f = path.join(dir, 'gpt-oss-20b-sparse.gguf');
      copyFileSync(path.join(ROOT, GGUF_DIR, 'gpt-oss-20b.meta.gguf'), f);
      truncateSync(f, 8 * 2 ** 30);
      const t0 = performance.now();
      await page.setInputFiles('[data-testid=gguf-input]', f);
      await page.waitForSelector('[data-testid=model-summary][data-file="gpt-oss-20b-sparse.gguf"]', { timeout: 20000 });
      const total = performance.now() - t0;
      const read = Number(await page.getAttribute('[data-testid=model-summary]', 'data-bytes-read'));
      assert(read > 0 && read <= 1 << 20, `read ${read} bytes of the file`);
      assert((await page.textContent('[data-testid=model-summary]')).includes('gpt-oss'), 'not the gpt-oss header');
      times.push(`8 GiB sparse gpt-oss-20b: header read in ${await page.textContent('[data-testid=gguf-read-ms]')} ms (page), shown after ${total.toFixed(0)} ms (including the graph and plan)`);
      // each settings change: the page's own times (sizes, graph, plan and views), and until shown
      const current = Number(await page.inputValue('[data-testid=set-n_ctx]'));
      for (const ctx of [8192, 16384, 2048].filter((c) => c !== current)) {
        const before = await page.textContent('[data-testid=model-cmd]');
        const t1 = performance.now();
        await setFlag('n_ctx', ctx);
        await page.waitForFunction((c) => document.querySelector('[data-testid=model-cmd]').textContent !== c, before, { timeout: 20000 });
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        times.push(`gpt-oss-20b -c ${ctx}: shown after ${(performance.now() - t1).toFixed(0)} ms; ${(await page.textContent('[data-testid=model-build-ms]')).replace(/\s+/g, ' ').trim()}`);
      }
      await page.screenshot({ path: path.join(OUT, 'model-gpt-oss-sparse.png'), fullPage: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  await check('a file that is not GGUF: the error names the byte offset', async () => {
    await page.setInputFiles('[data-testid=gguf-input]', { name: 'not.gguf', mimeType: 'application/octet-stream', buffer: Buffer.from('GGML\x03\x00\x00\x00') });
    await page.waitForFunction(() => /offset 0: invalid magic/.test(document.querySelector('[data-testid=model-error]')?.textContent ?? ''), null, { timeout: 10000 });
  });
  return times;
}
