// e2e.mjs: the visualizer in a real browser (Debian chromium, driven by playwright-core).
//
// Builds the UI (vite build -> build/web), serves it on a free local port,
// and checks what a user would do: pick a preset, change a max size and see
// the totals the native CLI computes for the same graph, edit a line of the
// graph text, hover a tensor and read its chunk/offset, import a golden
// graph through the file input, feed bad input and keep the last good plan,
// step through, share a link. Also times the timeline of the largest preset
// and of a 12,000-tensor import. Screenshots go to build/e2e/.
// Usage: npm run e2e   (E2E_NO_BUILD=1 to skip the build)
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './static-server.mjs';
import { parseGraphText } from '../../web/src/core/graph-text.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = path.join(ROOT, 'build/e2e');
const CLI = path.join(ROOT, 'build/rel/galloc');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
mkdirSync(OUT, { recursive: true });

let passed = 0;
let failed = 0;
const results = [];
async function check(name, fn) {
  const t0 = performance.now();
  try {
    await fn();
    passed++;
    results.push(`ok - ${name} (${(performance.now() - t0).toFixed(0)} ms)`);
    console.log(results[results.length - 1]);
  } catch (e) {
    failed++;
    results.push(`not ok - ${name}: ${e.message}`);
    console.log(results[results.length - 1]);
  }
}
function assert(cond, msg) { if (!cond) throw new Error(msg); }

/** what the native CLI plans for a graph document */
function cliPlan(doc) {
  const f = path.join(OUT, 'cli-input.graph.json');
  writeFileSync(f, JSON.stringify(doc));
  return JSON.parse(execFileSync(CLI, ['plan', f], { encoding: 'utf8', maxBuffer: 1 << 28 }));
}
const cliPreset = (name) => JSON.parse(execFileSync(CLI, ['preset', name], { encoding: 'utf8' }));

// ---- build and serve -------------------------------------------------------------
for (const [file, how] of [['build/wasm/galloc.mjs', 'make wasm'], ['build/rel/galloc', 'make cli']]) {
  if (!existsSync(path.join(ROOT, file))) {
    console.log(`${file} missing: running ${how}`);
    execFileSync('make', how.split(' ').slice(1), { cwd: ROOT, stdio: 'inherit' });
  }
}
if (!process.env.E2E_NO_BUILD) {
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'warn'], { cwd: ROOT, stdio: 'inherit' });
}
const server = await serve(path.join(ROOT, 'build/web'));
const profile = mkdtempSync(path.join(tmpdir(), 'galloc-e2e-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: CHROMIUM,
  headless: true,
  viewport: { width: 1600, height: 1000 },
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
});
const page = await context.newPage();
const consoleErrors = [];
page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
page.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));

const totalOf = async (b) => Number(await page.getAttribute(`[data-testid=total-${b}]`, 'data-bytes'));
const chunksOf = async (b) => Number(await page.textContent(`[data-testid=chunks-${b}]`));
async function waitTotal(b, bytes, what) {
  try {
    await page.waitForFunction(([bb, v]) => document.querySelector(`[data-testid=total-${bb}]`)?.getAttribute('data-bytes') === String(v), [b, bytes], { timeout: 10000 });
  } catch { throw new Error(`${what}: total of buffer ${b} is ${await totalOf(b)}, expected ${bytes}`); }
}
const cmLine = (text) => page.locator('.cm-line', { hasText: text }).first();
async function replaceLine(oldText, newText) {
  const line = cmLine(oldText);
  await line.click();
  await page.keyboard.press('End');
  await page.keyboard.press('Shift+Home');
  await page.keyboard.insertText(newText);
}
const editorText = () => page.evaluate(() => [...document.querySelectorAll('.cm-content .cm-line')].map((l) => l.textContent).join('\n'));

try {
  await check('page loads the WASM module and a default preset', async () => {
    await page.goto(server.url);
    await page.waitForSelector('[data-testid=timeline] [data-testid=timeline-svg], [data-testid=timeline] canvas', { timeout: 20000 });
    assert(await page.isVisible('[data-testid=buffer-table]'), 'no buffer table');
  });

  const presetName = 'test_reuse_and_free';
  const presetDoc = cliPreset(presetName);
  await check(`pick preset ${presetName}: totals and chunks equal the CLI's`, async () => {
    await page.selectOption('[data-testid=preset]', presetName);
    const want = cliPlan(presetDoc);
    await waitTotal(0, want.buffers[0].size, 'preset');
    assert(await chunksOf(0) === want.buffers[0].chunk_sizes.length, 'chunk count differs');
    assert((await page.textContent('[data-testid=lesson]')).includes('reused'), 'no lesson sentence');
    await page.screenshot({ path: path.join(OUT, '01-preset.png'), fullPage: true });
  });

  await check('change the max buffer size: totals and chunk count follow the CLI', async () => {
    for (const max of [16, 24, 64]) {
      await page.fill('[data-testid=max-size-0]', String(max));
      await page.press('[data-testid=max-size-0]', 'Enter');
      const doc = structuredClone(presetDoc);
      doc.buffer_types[0].max_size = max;
      const want = cliPlan(doc);
      await waitTotal(0, want.buffers[0].size, `max ${max}`);
      assert(await chunksOf(0) === want.buffers[0].chunk_sizes.length, `max ${max}: ${await chunksOf(0)} chunks, CLI ${want.buffers[0].chunk_sizes.length}`);
      assert((await editorText()).includes(`max=${max}`), 'the @buffer line did not change');
    }
    await page.selectOption('[data-testid=max-unit-0]', 'KiB');
    await waitTotal(0, cliPlan({ ...presetDoc, buffer_types: [{ ...presetDoc.buffer_types[0], max_size: 64 * 1024 }] }).buffers[0].size, 'KiB');
    await page.screenshot({ path: path.join(OUT, '02-max-size.png'), fullPage: true });
  });

  await check('edit a line of graph text: the plan updates to the CLI plan of the new text', async () => {
    await replaceLine('x4 = pad(x0, 2)', 'x4 = pad(x0, 10)');
    const r = parseGraphText(await editorText());
    assert(!r.errors, `the edited text does not parse: ${JSON.stringify(r.errors)}`);
    const want = cliPlan(r.doc);
    await waitTotal(0, want.buffers[0].size, 'edited text');
    await page.screenshot({ path: path.join(OUT, '03-edited.png'), fullPage: true });
  });

  await check('hover a tensor: the tooltip gives its chunk and offset as the CLI plans them', async () => {
    const r = parseGraphText(await editorText());
    const want = cliPlan(r.doc);
    const i = r.doc.tensors.findIndex((t) => t.name === 'x5');
    const p = want.tensors[i];
    const box = await page.locator(`[data-testid=timeline-svg] rect[data-t="${i}"]`).boundingBox();
    assert(box, 'no rectangle for x5');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height * 0.8);
    await page.waitForSelector('[data-testid=tooltip]', { timeout: 5000 });
    const where = await page.textContent('[data-testid=tooltip-where]');
    assert(where.includes(`chunk ${p.chunk} · offset ${p.offset}`), `tooltip says "${where}", CLI: chunk ${p.chunk} offset ${p.offset}`);
    assert((await page.textContent('[data-testid=tooltip]')).includes('x5'), 'tooltip does not name x5');
    await page.screenshot({ path: path.join(OUT, '04-tooltip.png'), fullPage: true });
    await page.mouse.click(box.x + box.width / 2, box.y + box.height * 0.8);
    await page.waitForSelector('[data-testid=inspector] .tt-why', { timeout: 5000 });
    assert((await page.textContent('[data-testid=inspector]')).includes('x5'), 'click did not select x5');
  });

  await check('step through: the step shows live, placed and freed tensors', async () => {
    await page.fill('[data-testid=step-slider]', '2');
    await page.waitForFunction(() => document.querySelector('[data-testid=step-info]')?.textContent.includes('step 2'), null, { timeout: 5000 });
    const info = await page.textContent('[data-testid=step-info]');
    assert(/placed: /.test(info) && /free gaps: /.test(info), `step info: ${info}`);
    await page.screenshot({ path: path.join(OUT, '05-step.png'), fullPage: true });
  });

  const llama = path.join(ROOT, 'tests/golden/llama-tiny.graph.json');
  await check('import tests/golden/llama-tiny.graph.json through the file input', async () => {
    await page.setInputFiles('[data-testid=file-input]', llama);
    const want = cliPlan(JSON.parse(readFileSync(llama, 'utf8')));
    await waitTotal(0, want.buffers[0].size, 'llama-tiny import');
    assert(await chunksOf(0) === want.buffers[0].chunk_sizes.length, 'chunk count differs');
    assert((await page.textContent('[data-testid=notice]')).includes('imported'), 'no import notice');
    assert((await editorText()).includes('Kcur-0 = mul_mat(blk.0.attn_k.weight, attn_norm-0)'), 'the text does not show ggml calls');
    await page.screenshot({ path: path.join(OUT, '06-llama-tiny.png'), fullPage: true });
  });

  await check('bad input: a broken document and a broken line show errors and keep the last good plan', async () => {
    const before = await totalOf(0);
    await page.click('text=Paste…');
    await page.fill('[data-testid=paste-text]', '{"tensors": [{"name": "<b>a</b>", "op": "ADD", "type": "f32", "ne": [4], "src": [9]}], "outputs": [0]}');
    await page.click('[data-testid=paste-import]');
    await page.waitForFunction(() => document.querySelector('[data-testid=notice]')?.textContent.includes('out of range'), null, { timeout: 5000 });
    assert(await totalOf(0) === before, 'the plan changed after a bad import');
    await page.fill('[data-testid=paste-text]', '{"tensors": [{"name": "huge", "op": "NONE", "type": "f32", "ne": [1e30], "flags": ["input"]}], "outputs": [0]}');
    await page.click('[data-testid=paste-import]');
    await page.waitForFunction(() => /could not import/.test(document.querySelector('[data-testid=notice]')?.textContent ?? ''), null, { timeout: 5000 });
    assert(await totalOf(0) === before, 'the plan changed after an absurd size');
    await page.click('text=Cancel');
    await replaceLine('norm-0 = rms_norm(inp_embd)', 'norm-0 = rms_norm(inp_embd) ne=[7]');
    await replaceLine('attn_norm-0 = mul(norm-0, blk.0.attn_norm.weight)', 'attn_norm-0 = mull(norm-0, blk.0.attn_norm.weight)');
    await page.waitForSelector('[data-testid=text-error]', { timeout: 5000 });
    const msg = await page.textContent('[data-testid=text-error]');
    assert(/line \d+: unknown op 'mull'/.test(msg) || /line \d+: .*mul/.test(msg), `error banner: ${msg}`);
    assert(await totalOf(0) === before, 'the plan changed while the text is broken');
    assert(await page.locator('.cm-lintRange-error, .cm-lint-marker-error').count() > 0, 'no error marked in the editor');
    await page.screenshot({ path: path.join(OUT, '07-bad-input.png'), fullPage: true });
    const html = await page.content();
    assert(!html.includes('<b>a</b>'), 'a document name was rendered as HTML');
  });

  await check('share link: reloading it restores the graph and limits', async () => {
    await page.selectOption('[data-testid=preset]', presetName);
    await page.fill('[data-testid=max-size-0]', '24');
    await page.press('[data-testid=max-size-0]', 'Enter');
    const doc = structuredClone(presetDoc);
    doc.buffer_types[0].max_size = 24;
    const want = cliPlan(doc).buffers[0].size;
    await waitTotal(0, want, 'before sharing');
    await page.click('[data-testid=share]');
    const url = page.url();
    assert(url.includes('#g='), `no fragment in ${url}`);
    const page2 = await context.newPage();
    page2.on('pageerror', (e) => consoleErrors.push(`pageerror: ${e.message}`));
    await page2.goto(url);
    await page2.waitForFunction((v) => document.querySelector('[data-testid=total-0]')?.getAttribute('data-bytes') === String(v), want, { timeout: 15000 });
    await page2.close();
    await page.bringToFront();
  });

  await check('export: plan JSON and timeline SVG download', async () => {
    for (const [what, ext] of [['plan', '.plan.json'], ['svg', '.timeline.svg']]) {
      const [dl] = await Promise.all([page.waitForEvent('download'), page.selectOption('[data-testid=export]', what)]);
      assert(dl.suggestedFilename().endsWith(ext), `download named ${dl.suggestedFilename()}`);
      const p = path.join(OUT, `export${ext}`);
      await dl.saveAs(p);
      const body = readFileSync(p, 'utf8');
      assert(what === 'plan' ? JSON.parse(body).format === 'galloc-plan' : body.startsWith('<svg'), `bad ${what} export`);
    }
  });

  const timings = [];
  async function timeRender(label, action) {
    await page.evaluate(() => { window.__gallocTimeline = null; });
    const t0 = await page.evaluate(() => performance.now());
    await action();
    try {
      await page.waitForFunction((t) => window.__gallocTimeline && window.__gallocTimeline.paintedAt > t, t0, { timeout: 60000, polling: 50 });
    } catch (e) {
      throw new Error(`${label}: no paint (${await page.evaluate(() => JSON.stringify([window.__gallocTimeline, document.visibilityState, performance.now()]))}, t0 ${t0})`);
    }
    const tl = await page.evaluate(() => ({ ...window.__gallocTimeline, drawMs: window.__gallocDrawMs }));
    const ms = tl.paintedAt - t0;
    const draw = tl.mode === 'canvas' ? `, of which drawing the canvas ${tl.drawMs.toFixed(1)} ms` : '';
    timings.push(`${label}: ${tl.rects} rectangles (${tl.mode}) on screen ${ms.toFixed(0)} ms after the request (parse, plan, layout, paint)${draw}`);
    return ms;
  }

  await check('time the timeline of the largest preset', async () => {
    const sizes = await page.evaluate(() => [...document.querySelectorAll('[data-testid=preset] option')].map((o) => o.value).filter(Boolean));
    let best = null;
    let bestN = -1;
    for (const name of sizes) {
      const n = cliPreset(name).tensors.length;
      if (n > bestN) { best = name; bestN = n; }
    }
    await timeRender(`largest preset ${best} (${bestN} tensors)`, () => page.selectOption('[data-testid=preset]', best));
    await page.screenshot({ path: path.join(OUT, '08-largest-preset.png'), fullPage: true });
  });

  await check('import a 12,000-tensor golden graph: canvas timeline, hover still works', async () => {
    const f = path.join(ROOT, 'tests/golden/rand-n10000-s1-a32-chunked.graph.json');
    const want = cliPlan(JSON.parse(readFileSync(f, 'utf8')));
    const ms = await timeRender('import rand-n10000-s1-a32-chunked (12099 tensors)', () => page.setInputFiles('[data-testid=file-input]', f));
    await waitTotal(0, want.buffers[0].size, '12k import');
    assert(await page.getAttribute('[data-testid=timeline]', 'data-mode') === 'canvas', 'not drawn on a canvas');
    const box = await page.locator('[data-testid=timeline]').boundingBox();
    let hit = false;
    for (let k = 0; k < 40 && !hit; k++) {
      await page.mouse.move(box.x + 120 + k * 30, box.y + 120 + (k % 5) * 20);
      hit = await page.isVisible('[data-testid=tooltip]');
    }
    assert(hit, 'no tooltip anywhere on the canvas timeline');
    await page.screenshot({ path: path.join(OUT, '09-12k-tensors.png') });
    assert(ms < 30000, `took ${ms} ms`);
  });

  await check('no console errors', async () => {
    assert(consoleErrors.length === 0, consoleErrors.join(' | '));
  });

  console.log('\ntimeline render times:');
  for (const t of timings) console.log(`  ${t}`);
} finally {
  await context.close();
  await server.close();
  rmSync(profile, { recursive: true, force: true });
}
writeFileSync(path.join(OUT, 'results.txt'), `${results.join('\n')}\n`);
console.log(`\nscreenshots: ${OUT}`);
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
