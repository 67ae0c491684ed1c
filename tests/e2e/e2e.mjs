// e2e.mjs: the visualizer in a real browser (Debian chromium, driven by playwright-core).
//
// Builds the UI (make build/web/index.html), serves it on a free local port,
// and checks what a user would do: pick a preset, change a max size and see
// the totals the native CLI computes for the same graph, edit a line of the
// graph text, hover a tensor and read its chunk/offset, import a golden
// graph through the file input, feed bad input and keep the last good plan,
// step through, share a link, rewire by dragging in the graph view, keep the
// timeline zoom across an edit, bring a tensor selected in the timeline into
// the graph view. Also times the timeline of the largest preset
// and of a 12,000-tensor import. The What-if panel: its numbers against the
// CLI's `plan --compare`, another planner's plan on the timeline, a MiniMalloc
// CSV problem solved in the worker (timed), bad CSV input, a long search that
// leaves the page responsive and can be stopped. The model page (model.mjs): a dropped GGUF's
// compute buffer size against llama.cpp's, cards, the sweep plot against the CLI, an 8 GiB
// file read by its header. The answer at the top and the devices (devices.mjs): the breakdown in
// view at 1280×800, no overflow, two GPUs against the CLI's --json, the -ngl sweep; the keyboard
// (keyboard.mjs), nothing lost (restore.mjs), the legend (legend.mjs), files dropped anywhere (drop.mjs), a 70B
// card's setting changes timed (latency.mjs, printed), the byte scale chosen for the plan (scale.mjs), one model
// compared at two settings (compare-settings.mjs). The explanation panels (e2e-explain.mjs): the peak panel, the
// memory chart and the compare view on the 70B llama preset. Damaged links, empty pastes,
// Ctrl+Z and huge links (e2e-hostile.mjs). Screenshots go to build/e2e/.
// Usage: npm run e2e   (E2E_NO_BUILD=1 to skip the build; E2E_BIG=1 also the huge inputs of
// e2e-hostile.mjs, as make test-big does; E2E_MINIMALLOC_ALL=1 also times every CSV of
// ../shared/bench/minimalloc, when present)
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve } from './static-server.mjs';
import { parseGraphText } from '../../web/src/core/graph-text.js';
import { formatBytes, formatBytesBoth } from '../../web/src/core/format.js';
import { cliCompare } from '../js/whatif-helpers.js';
import { explainChecks } from './e2e-explain.mjs';
import { readabilityChecks } from './readability.mjs';
import { modelChecks } from './model.mjs';
import { devicesChecks } from './devices.mjs';
import { keyboardChecks } from './keyboard.mjs';
import { restoreChecks } from './restore.mjs';
import { legendChecks } from './legend.mjs';
import { dropChecks } from './drop.mjs';
import { latencyChecks } from './latency.mjs';
import { scaleChecks } from './scale.mjs';
import { compareSettingsChecks } from './compare-settings.mjs';
import { hostileChecks } from './e2e-hostile.mjs';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const OUT = path.join(ROOT, 'build/e2e');
const CLI = path.join(ROOT, 'build/rel/galloc');
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
mkdirSync(OUT, { recursive: true });

let passed = 0;
let failed = 0;
let skipped = 0;
const results = [];
// E2E_BIG=1 (make test-big): also the huge inputs (300,000-line links and imports); without it they are skipped and counted so
const BIG = process.env.E2E_BIG === '1';
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
function skip(name, why) {
  skipped++;
  results.push(`skipped - ${name} (${why})`);
  console.log(results[results.length - 1]);
}

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
if (!process.env.E2E_NO_BUILD) { // the Makefile's rule is the one place the UI is built
  execFileSync('make', ['--no-print-directory', 'build/web/index.html'], { cwd: ROOT, stdio: 'inherit' });
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

  await check('edit a line of graph text: the plan updates to the CLI plan of the new text, the step zoom stays', async () => {
    const zoomK = () => page.getAttribute('[data-testid=timeline]', 'data-zoom-steps').then(Number);
    const tl = await page.locator('[data-testid=timeline]').boundingBox();
    await page.mouse.move(tl.x + tl.width / 2, tl.y + tl.height / 2);
    await page.mouse.wheel(0, -400);
    await page.waitForFunction(() => Number(document.querySelector('[data-testid=timeline]').dataset.zoomSteps) > 1.5, null, { timeout: 5000 });
    const zoomed = await zoomK();
    await replaceLine('x4 = pad(x0, 2)', 'x4 = pad(x0, 10)');
    const r = parseGraphText(await editorText());
    assert(!r.errors, `the edited text does not parse: ${JSON.stringify(r.errors)}`);
    const want = cliPlan(r.doc);
    await waitTotal(0, want.buffers[0].size, 'edited text');
    assert(await zoomK() === zoomed, `the step zoom went from ${zoomed} to ${await zoomK()} on a new plan of as many steps`);
    await page.click('[data-testid=reset-zoom]');
    await page.waitForFunction(() => Number(document.querySelector('[data-testid=timeline]').dataset.zoomSteps) === 1, null, { timeout: 5000 });
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
    assert(where.includes(`chunk ${p.chunk} · offset ${formatBytesBoth(p.offset)} ·`), `tooltip says "${where}", CLI: chunk ${p.chunk} offset ${p.offset}`);
    assert((await page.textContent('[data-testid=tooltip]')).includes('x5'), 'tooltip does not name x5');
    await page.screenshot({ path: path.join(OUT, '04-tooltip.png'), fullPage: true });
    await page.mouse.click(box.x + box.width / 2, box.y + box.height * 0.8);
    await page.waitForSelector('[data-testid=inspector] .tt-why', { timeout: 5000 });
    assert((await page.textContent('[data-testid=inspector]')).includes('x5'), 'click did not select x5');
  });

  await check('rewire in the graph view: drag a tensor onto another, pick the slot; cycles are refused', async () => {
    const names = () => editorText().then((t) => parseGraphText(t).doc.tensors.map((x) => x.name));
    const centre = async (name) => {
      const i = (await names()).indexOf(name);
      const box = await page.locator(`[data-testid=dag] [data-node="${i}"]`).boundingBox();
      assert(box, `no graph node for ${name}`);
      return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    };
    const dragOnto = async (from, to) => {
      await page.evaluate(() => document.querySelector('[data-testid=dag]').scrollIntoView({ block: 'center' }));
      const a = await centre(from);
      const b = await centre(to);
      await page.mouse.move(a.x, a.y);
      await page.mouse.down();
      await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2, { steps: 4 });
      await page.mouse.move(b.x, b.y, { steps: 4 });
      await page.mouse.up();
    };
    // x3 = add(x1, x2): x2 onto x3, then src[0] in the menu
    await dragOnto('x2', 'x3');
    await page.waitForSelector('[data-testid=slot-menu]', { timeout: 5000 });
    await page.click('[data-testid=slot-menu] button[data-slot="0"]');
    await page.waitForFunction(() => [...document.querySelectorAll('.cm-content .cm-line')].some((l) => l.textContent === 'x3 = add(x2, x2)'), null, { timeout: 5000 });
    const r = parseGraphText(await editorText());
    assert(!r.errors, `the rewired text does not parse: ${JSON.stringify(r.errors)}`);
    await waitTotal(0, cliPlan(r.doc).buffers[0].size, 'rewired');
    // x8 depends on x3: making it x3's source would be a cycle
    await dragOnto('x8', 'x3');
    await page.waitForSelector('[data-testid=slot-menu]', { timeout: 5000 });
    await page.click('[data-testid=slot-menu] button[data-slot="1"]');
    await page.waitForFunction(() => document.querySelector('[data-testid=notice]')?.textContent.includes('cycle'), null, { timeout: 5000 });
    assert((await editorText()).includes('x3 = add(x2, x2)'), 'a refused rewire changed the text');
    // and back
    await dragOnto('x1', 'x3');
    await page.click('[data-testid=slot-menu] button[data-slot="0"]');
    await page.waitForFunction(() => [...document.querySelectorAll('.cm-content .cm-line')].some((l) => l.textContent === 'x3 = add(x1, x2)'), null, { timeout: 5000 });
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
    // a tensor at the bottom of the graph, selected in the timeline, is brought into the graph view
    const names = parseGraphText(await editorText()).doc.tensors.map((t) => t.name);
    const last = names.lastIndexOf('result_output');
    assert(last >= 0, 'no result_output tensor');
    const inView = () => page.evaluate((i) => {
      const svg = document.querySelector('[data-testid=dag]').getBoundingClientRect();
      const n = document.querySelector(`[data-testid=dag] [data-node="${i}"]`)?.getBoundingClientRect();
      return Boolean(n) && n.left >= svg.left && n.right <= svg.right && n.top >= svg.top && n.bottom <= svg.bottom;
    }, last);
    assert(!(await inView()), 'result_output is already in view: the check proves nothing');
    await page.click(`[data-testid=timeline-svg] rect[data-t="${last}"]`);
    await page.waitForFunction((i) => {
      const svg = document.querySelector('[data-testid=dag]').getBoundingClientRect();
      const n = document.querySelector(`[data-testid=dag] [data-node="${i}"]`)?.getBoundingClientRect();
      return Boolean(n) && n.left >= svg.left && n.right <= svg.right && n.top >= svg.top && n.bottom <= svg.bottom;
    }, last, { timeout: 5000 });
  });

  await check('a real graph with an op newer than the tables imports, plans as the CLI does, and the banner warns once', async () => {
    const doc = { tensors: [{ name: 'x', op: 'NONE', type: 'f32', ne: [8], flags: ['input'] },
      { name: 'z', op: 'GET_ROWS', type: 'f32', ne: [8, 0], src: [0] },
      { name: 'y', op: 'GATED_DELTA_NET_V2', type: 'f32', ne: [8], src: [0, 1], flags: ['output'] }], outputs: [2] };
    await page.click('text=Paste…');
    await page.fill('[data-testid=paste-text]', JSON.stringify(doc));
    await page.click('[data-testid=paste-import]');
    await page.waitForFunction(() => /warning: .*op GATED_DELTA_NET_V2 \(1 tensor\)/.test(document.querySelector('[data-testid=notice]')?.textContent ?? ''), null, { timeout: 5000 });
    assert(await page.locator('[data-testid=notice].warning').count() === 1, 'the warning is not shown as a warning');
    await waitTotal(0, cliPlan(doc).buffers[0].size, 'real graph import');
    assert((await editorText()).includes('y = GATED_DELTA_NET_V2(x, z)'), 'the unknown op is not kept by name in the text');
    // back to llama-tiny for the checks that follow
    await page.setInputFiles('[data-testid=file-input]', llama);
    await waitTotal(0, cliPlan(JSON.parse(readFileSync(llama, 'utf8'))).buffers[0].size, 'llama-tiny again');
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

  await check('export: every download\'s contents (graph JSON, graph text, plan JSON = the CLI\'s plan of the exported graph, SVG rectangles and byte ticks, PNG size)', async () => {
    await page.click('[data-testid=reset-zoom]');
    const saved = {};
    for (const [what, ext] of [['graph', '.graph.json'], ['text', '.galloc.txt'], ['plan', '.plan.json'], ['svg', '.timeline.svg'], ['png', '.timeline.png']]) {
      const [dl] = await Promise.all([page.waitForEvent('download'), page.selectOption('[data-testid=export]', what)]);
      assert(dl.suggestedFilename().endsWith(ext), `download named ${dl.suggestedFilename()}`);
      const p = path.join(OUT, `export${ext}`);
      await dl.saveAs(p);
      saved[what] = readFileSync(p);
    }
    // graph JSON: a document the CLI plans; graph text: parses to a document with the same plan
    const graphDoc = JSON.parse(saved.graph.toString('utf8'));
    const want = cliPlan(graphDoc);
    assert(want.buffers[0].size === await totalOf(0), `the exported graph plans to ${want.buffers[0].size} in the CLI, the page shows ${await totalOf(0)}`);
    const fromText = parseGraphText(saved.text.toString('utf8'));
    assert(!fromText.errors && fromText.doc, `the exported text does not parse: ${JSON.stringify((fromText.errors ?? []).slice(0, 2))}`);
    const textPlan = cliPlan(fromText.doc);
    assert(JSON.stringify(textPlan.buffers) === JSON.stringify(want.buffers), `the exported text plans to ${JSON.stringify(textPlan.buffers)}, the graph to ${JSON.stringify(want.buffers)}`);
    // plan JSON: exactly the CLI's `galloc plan` of the exported graph
    const planDoc = JSON.parse(saved.plan.toString('utf8'));
    assert(JSON.stringify(planDoc) === JSON.stringify(want), `the exported plan differs from the CLI's: ${JSON.stringify(planDoc).slice(0, 300)} vs ${JSON.stringify(want).slice(0, 300)}`);
    // SVG: well-formed; one filled rectangle titled by its name per tensor the CLI places, a
    // dashed one per view; per lane the chunk's size and byte ticks at round binary values, exact
    const svg = await page.evaluate((text) => {
      const d = new DOMParser().parseFromString(text, 'image/svg+xml');
      if (d.querySelector('parsererror') || d.documentElement.nodeName !== 'svg') return { error: d.querySelector('parsererror')?.textContent ?? d.documentElement.nodeName };
      const rects = [...d.querySelectorAll('rect')].filter((r) => r.querySelector('title'));
      return {
        width: Number(d.documentElement.getAttribute('width')),
        filled: rects.filter((r) => r.getAttribute('fill') !== 'none').map((r) => r.querySelector('title').textContent),
        dashed: rects.filter((r) => r.getAttribute('fill') === 'none').map((r) => r.querySelector('title').textContent),
        lanes: [...d.querySelectorAll('text')].map((t) => t.textContent).filter((t) => /^chunk \d+ · /.test(t)),
        axes: [...d.querySelectorAll('g.byte-axis')].map((g) => [...g.querySelectorAll('g.tick')].map((t) => ({ bytes: Number(t.dataset.bytes), label: t.textContent }))),
      };
    }, saved.svg.toString('utf8'));
    assert(!svg.error, `the SVG is not well-formed: ${svg.error}`);
    const placed = want.tensors.map((t, i) => [t, graphDoc.tensors[i].name]).filter(([t]) => t && ['best_fit', 'last_block', 'grow', 'new_chunk', 'inplace'].includes(t.how));
    const views = want.tensors.map((t, i) => [t, graphDoc.tensors[i].name]).filter(([t]) => t && t.how === 'view' && t.buffer !== null && t.buffer >= 0);
    assert(JSON.stringify(svg.filled.slice().sort()) === JSON.stringify(placed.map(([, n]) => n).sort()), `SVG rectangles ${JSON.stringify(svg.filled)}, the CLI places ${JSON.stringify(placed.map(([, n]) => n))}`);
    assert(svg.dashed.length <= views.length && svg.dashed.every((n) => views.some(([, v]) => v === n)), `SVG view outlines ${JSON.stringify(svg.dashed)}, views ${JSON.stringify(views.map(([, n]) => n))}`);
    const chunkSizes = want.buffers.flatMap((b) => (b.shared_with === null ? b.chunk_sizes : []));
    assert(JSON.stringify(svg.lanes) === JSON.stringify(chunkSizes.map((c, k) => `chunk ${want.buffers.flatMap((b) => (b.shared_with === null ? b.chunk_sizes.map((_, j) => j) : []))[k]} · ${formatBytes(c)}`)),
      `SVG lane labels ${JSON.stringify(svg.lanes)}, the CLI's chunk sizes ${JSON.stringify(chunkSizes)}`);
    assert(svg.axes.length === chunkSizes.length, `${svg.axes.length} byte axes for ${chunkSizes.length} lanes`);
    const UNITS = { B: 1, KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };
    svg.axes.forEach((ticks, k) => {
      assert(ticks.length >= 2 && ticks[0].bytes === 0, `lane ${k}: ticks ${JSON.stringify(ticks)}`);
      const step = ticks[1].bytes;
      assert(Number.isInteger(Math.log2(step)), `lane ${k}: tick step ${step} is not a power of two`);
      ticks.forEach((t, i) => {
        const m = /^([\d.]+)(?: (\w+))?$/.exec(t.label);
        assert(t.bytes === i * step && m && (t.label === '0' ? 0 : Number(m[1]) * UNITS[m[2] ?? 'B']) === t.bytes, `lane ${k}: tick ${JSON.stringify(t)}`);
      });
    });
    // PNG: the signature, and the SVG drawn at twice its size
    const png = saved.png;
    assert(png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'the PNG export has no PNG signature');
    assert(png.readUInt32BE(16) === 2 * svg.width, `PNG ${png.readUInt32BE(16)} px wide, the SVG ${svg.width}`);
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
    const sizes = await page.evaluate(() => [...document.querySelectorAll('[data-testid=preset] option')].map((o) => o.value).filter((v) => v && !v.startsWith('card:')));
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

  // ---- What if ------------------------------------------------------------------------
  const whatifTimes = [];
  const rowBytes = async (name) => BigInt(await page.getAttribute(`[data-testid=whatif-row-${name}]`, 'data-bytes'));
  const rowAttr = (name, attr) => page.getAttribute(`[data-testid=whatif-row-${name}]`, attr);
  // the number of the what-if result on screen (0: none yet)
  const whatifSeq = async () => Number(await page.getAttribute('[data-testid=whatif-status]', 'data-seq').catch(() => null) ?? 0);
  // wait for the final numbers of a result newer than `after`
  async function waitWhatif(what, after, timeout = 60000) {
    try {
      await page.waitForFunction((n) => {
        const s = document.querySelector('[data-testid=whatif-status]');
        return s && s.dataset.state === 'done' && s.dataset.final === 'true' && Number(s.dataset.seq) > n;
      }, after, { timeout, polling: 50 });
    } catch {
      throw new Error(`${what}: the analysis did not finish (${await page.textContent('[data-testid=whatif]').catch(() => 'no panel')})`);
    }
  }
  const svgRects = () => page.locator('[data-testid=timeline-svg] rect[data-t]').count();

  await check('What-if panel on a preset: lower bound, ggml and greedy totals equal the CLI\'s --compare', async () => {
    await page.selectOption('[data-testid=preset]', 'llama-tiny-setrows');
    await page.click('[data-testid=whatif-toggle]');
    await waitWhatif('llama-tiny-setrows', 0);
    const cli = cliCompare(JSON.stringify(cliPreset('llama-tiny-setrows')), 0)[0];
    assert(BigInt(await page.getAttribute('[data-testid=whatif-lower-bound]', 'data-bytes')) === cli.lowerBound, 'lower bound differs from the CLI');
    for (const name of ['ggml', 'greedy-by-size', 'greedy-by-breadth']) {
      const got = await rowBytes(name);
      assert(got === cli.totals[name], `${name}: ${got} in the page, ${cli.totals[name]} from the CLI`);
      assert(await rowAttr(name, 'data-checked') === 'true', `${name} fails the checker`);
    }
    assert((await rowBytes('ggml')) === BigInt(await totalOf(0)), 'ggml\'s total is not the buffer table\'s');
    const exact = await rowBytes('exact');
    assert(exact >= cli.lowerBound && exact <= cli.totals['greedy-by-size'], `exact total ${exact} out of [bound, greedy]`);
    if (await rowAttr('exact', 'data-proved') === 'true') {
      const cliExact = cliCompare(JSON.stringify(cliPreset('llama-tiny-setrows')), 2000)[0].totals.exact;
      assert(exact === cliExact, `exact: ${exact} in the page, ${cliExact} from the CLI`);
    }
    const best = await page.locator('[data-testid=whatif-best]').count();
    assert(best === 1, `${best} rows marked best`);
    assert((await page.textContent('[data-testid=whatif-headline]')).includes('less than ggml'), 'no saving in the headline');
    await page.screenshot({ path: path.join(OUT, '10-whatif.png'), fullPage: true });
  });

  await check('switch the timeline to the exact plan (one rectangle per item) and back to ggml\'s', async () => {
    const nItems = Number(await page.evaluate(() => document.querySelectorAll('[data-testid=timeline-svg] rect[data-t]').length));
    await page.check('[data-testid=whatif-show-exact]');
    await page.waitForSelector('[data-testid=timeline][data-planner=exact]', { timeout: 5000 });
    const cli = cliCompare(JSON.stringify(cliPreset('llama-tiny-setrows')), 0)[0];
    assert(await svgRects() === cli.items, `${await svgRects()} rectangles for ${cli.items} items`);
    assert((await page.textContent('[data-testid=timeline-caption]')).includes('exact plan'), 'the caption does not name the exact plan');
    const section = await page.textContent('[data-testid=timeline] .overlay .section');
    assert(section.includes('exact plan'), `section title: ${section}`);
    await page.locator('[data-testid=timeline-svg] rect[data-t]').first().scrollIntoViewIfNeeded();
    const box = await page.locator('[data-testid=timeline-svg] rect[data-t]').first().boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForSelector('[data-testid=tooltip]', { timeout: 5000 });
    assert((await page.textContent('[data-testid=tooltip]')).includes('exact plan'), 'the tooltip does not speak of the exact plan');
    await page.screenshot({ path: path.join(OUT, '11-whatif-exact-timeline.png'), fullPage: true });
    await page.mouse.move(5, 5);
    await page.check('[data-testid=whatif-show-ggml]');
    await page.waitForSelector('[data-testid=timeline][data-source=ggml]', { timeout: 30000 }); // generous: the page replans under load
    assert(await svgRects() === nItems, 'ggml\'s timeline did not come back');
  });

  await check('what-if on the llama presets in the browser (budget 2 s): time to the final numbers', async () => {
    for (const name of ['llama-tiny', 'llama-tiny-max4k', 'llama-3.1-8b-decode', 'llama-3.1-8b-c4096', 'llama-3.1-70b-c8192']) {
      const seq = await whatifSeq();
      const t0 = await page.evaluate(() => performance.now());
      await page.selectOption('[data-testid=preset]', name);
      await waitWhatif(name, seq);
      const t1 = await page.evaluate(() => performance.now());
      const ms = Number(await page.getAttribute('[data-testid=whatif-status]', 'data-ms'));
      const cli = cliCompare(JSON.stringify(cliPreset(name)), 0)[0];
      for (const planner of ['ggml', 'greedy-by-size', 'greedy-by-breadth']) {
        assert(await rowBytes(planner) === cli.totals[planner], `${name} ${planner}: ${await rowBytes(planner)}, CLI ${cli.totals[planner]}`);
      }
      const exactMs = Number(await rowAttr('exact', 'data-time-ms'));
      const proved = await rowAttr('exact', 'data-proved') === 'true';
      whatifTimes.push(`${name} (${cli.items} items): final numbers ${(t1 - t0).toFixed(0)} ms after picking the preset (plan + heuristics + exact); the exact-phase call took ${ms.toFixed(0)} ms in the worker, the search itself ${exactMs.toFixed(1)} ms, ${proved ? 'proved optimal' : 'not proved'}; best ${await page.evaluate(() => document.querySelector('[data-testid=whatif-best]')?.closest('tr')?.dataset.testid.replace('whatif-row-', ''))}`);
    }
  });

  await check('a long exact search leaves the page responsive, and can be stopped', async () => {
    await page.selectOption('[data-testid=preset]', 'llama-tiny-max4k'); // its exact search never ends early
    await page.selectOption('[data-testid=whatif-budget]', '20000');
    await page.waitForFunction(() => document.querySelector('[data-testid=whatif-status]')?.dataset.state === 'running' && /exact search/.test(document.querySelector('[data-testid=whatif-status]').textContent), null, { timeout: 10000, polling: 20 });
    // frames keep coming while the worker searches: the longest gap between two over 1.5 s
    const gap = await page.evaluate(() => new Promise((done) => {
      let last = performance.now();
      let worst = 0;
      const end = last + 1500;
      const tick = (t) => { worst = Math.max(worst, t - last); last = t; if (t < end) requestAnimationFrame(tick); else done(worst); };
      requestAnimationFrame(tick);
    }));
    await page.fill('[data-testid=step-slider]', '3');
    await page.waitForFunction(() => document.querySelector('[data-testid=step-info]')?.textContent.includes('step 3'), null, { timeout: 2000 });
    assert(await page.getAttribute('[data-testid=whatif-status]', 'data-state') === 'running', 'the search ended before it could be stopped');
    await page.click('[data-testid=whatif-stop]');
    await page.waitForFunction(() => document.querySelector('[data-testid=whatif-status]')?.dataset.state === 'done', null, { timeout: 3000 });
    assert(await page.getAttribute('[data-testid=whatif-status]', 'data-final') === 'false', 'stopped, yet said final');
    // the page's responsiveness is asserted by the slider answering above; the longest frame is
    // reported, never asserted (tests do not time things: it swung to 367 ms on a loaded machine)
    whatifTimes.push(`during an exact search in the worker, the longest frame on the page: ${gap.toFixed(0)} ms; stop ended it at once`);
  });

  const csvA = path.join(ROOT, 'tests/fixtures/minimalloc/A.1048576.csv');
  async function importCsvTimed(file) {
    const seq = await whatifSeq();
    const t0 = await page.evaluate(() => performance.now());
    await page.setInputFiles('[data-testid=csv-file-input]', file);
    const name = path.basename(file);
    await page.waitForFunction((n) => document.querySelector('[data-testid=timeline-caption]')?.textContent.includes(n), name, { timeout: 20000 });
    await waitWhatif(name, seq, 120000);
    const t1 = await page.evaluate(() => performance.now());
    return {
      wall: t1 - t0,
      exactMs: Number(await rowAttr('exact', 'data-time-ms')),
      exact: await rowBytes('exact'),
      bound: BigInt(await page.getAttribute('[data-testid=whatif-lower-bound]', 'data-bytes')),
      proved: await rowAttr('exact', 'data-proved') === 'true',
    };
  }

  await check('import MiniMalloc CSV A.1048576.csv: its rows drawn, solved at its capacity in the worker (budget 20 s)', async () => {
    const rows = readFileSync(csvA, 'utf8').trim().split('\n').length - 1;
    const t = await importCsvTimed(csvA);
    assert(await page.getAttribute('[data-testid=timeline]', 'data-source') === 'csv', 'the timeline does not show the CSV problem');
    assert(await svgRects() === rows, `${await svgRects()} rectangles for ${rows} rows`);
    assert((await page.textContent('[data-testid=whatif-source]')).includes('1,048,576 B (from the file name)'), 'capacity not taken from the file name');
    assert(t.exact === 1048576n && t.proved, `exact: ${t.exact} bytes, proved ${t.proved}`);
    assert(t.exactMs < 20000, `the exact search took ${t.exactMs} ms`);
    assert((await page.textContent('[data-testid=whatif-row-exact]')).includes('fits'), 'the exact plan does not say it fits');
    whatifTimes.push(`MiniMalloc A.1048576.csv (${rows} rows) at capacity 1 MiB: exact search ${t.exactMs.toFixed(0)} ms in the browser's worker, proved optimal; import to final numbers ${t.wall.toFixed(0)} ms`);
    await page.check('[data-testid=whatif-show-exact]');
    await page.waitForSelector('[data-testid=timeline][data-planner=exact]', { timeout: 5000 });
    await page.screenshot({ path: path.join(OUT, '12-csv-exact.png'), fullPage: true });
  });

  await check('bad CSV input: the banner names the line; the CSV on screen stays', async () => {
    const before = await svgRects();
    await page.click('[data-testid=csv-paste]');
    await page.fill('[data-testid=csv-paste-text]', 'id,lower,upper,size\n0,0,4,8\n1,<b>x</b>,3,8\n');
    await page.click('[data-testid=csv-paste-import]');
    await page.waitForFunction(() => /could not import pasted CSV: line 3: lower '<b>x<\/b>' is not an integer/.test(document.querySelector('[data-testid=notice]')?.textContent ?? ''), null, { timeout: 10000 });
    assert(await svgRects() === before, 'the timeline changed after a bad CSV');
    assert((await page.textContent('[data-testid=timeline-caption]')).includes('A.1048576.csv'), 'the CSV on screen changed');
    assert(await page.locator('[data-testid=notice] b').count() === 0, 'a CSV field was rendered as HTML');
    await page.screenshot({ path: path.join(OUT, '13-csv-bad-input.png'), fullPage: true });
    await page.fill('[data-testid=csv-paste-text]', '0,5,3,10');
    await page.click('[data-testid=csv-paste-import]');
    await page.waitForFunction(() => /line 1: upper 3 <= lower 5/.test(document.querySelector('[data-testid=notice]')?.textContent ?? ''), null, { timeout: 10000 });
    await page.fill('[data-testid=csv-capacity]', '12 bananas');
    await page.fill('[data-testid=csv-paste-text]', '0,0,3,10');
    await page.click('[data-testid=csv-paste-import]');
    await page.waitForFunction(() => /capacity: unknown unit "bananas"/.test(document.querySelector('[data-testid=notice]')?.textContent ?? ''), null, { timeout: 10000 });
    await page.fill('[data-testid=csv-capacity]', '');
    await page.fill('[data-testid=csv-paste-text]', 'id,lower,upper,size\n0,0,2,8\n1,1,3,8\n2,2,4,8\n');
    await page.click('[data-testid=csv-paste-import]');
    await page.waitForFunction(() => document.querySelector('[data-testid=timeline-caption]')?.textContent.includes('pasted CSV'), null, { timeout: 10000 });
    assert(await svgRects() === 3, 'the pasted CSV is not drawn');
  });

  const minimalloc = path.join(ROOT, '../shared/bench/minimalloc');
  if (process.env.E2E_MINIMALLOC_ALL && existsSync(minimalloc)) {
    await check('every MiniMalloc CSV at its capacity in the browser (budget 20 s each)', async () => {
      await page.selectOption('[data-testid=whatif-budget]', '20000');
      for (const f of ['A', 'B', 'C', 'D', 'E'].map((k) => path.join(minimalloc, `${k}.1048576.csv`)).filter(existsSync)) {
        const t = await importCsvTimed(f);
        whatifTimes.push(`${path.basename(f)}: exact ${t.exact} bytes (bound ${t.bound}, capacity 1048576: ${t.exact <= 1048576n ? 'fits' : 'does not fit'}), ${t.proved ? 'proved optimal' : 'not proved'}, search ${t.exactMs.toFixed(0)} ms`);
      }
    });
  }

  await check('back to the graph: the timeline shows ggml\'s plan again', async () => {
    // the budget change analyses the CSV again: closed only once that is on screen, so that the
    // close cancels nothing and the numbers awaited next are the graph's
    const before = await whatifSeq();
    await page.selectOption('[data-testid=whatif-budget]', '0');
    await waitWhatif('the CSV at budget 0', before);
    const seq = await whatifSeq();
    await page.click('[data-testid=csv-close]');
    await waitWhatif('back to the graph', seq);
    // the graph's analysis drawn with the planner still chosen (exact, picked on the CSV: at budget
    // 0 the best heuristic's plan); ggml's plan when ggml is picked. (Waiting for ggml's plan right
    // after the close passed only while the graph's numbers were not there yet: under load they
    // came first and the timeline drew the exact plan, the wait timed out.)
    await page.waitForSelector('[data-testid=timeline][data-source=whatif][data-planner=exact]', { timeout: 5000 });
    assert(await page.isChecked('[data-testid=whatif-show-exact]'), 'the planner drawn is not the one chosen');
    await page.check('[data-testid=whatif-show-ggml]');
    await page.waitForSelector('[data-testid=timeline][data-source=ggml]', { timeout: 5000 });
    await page.click('[data-testid=whatif-close]');
    assert(await page.locator('[data-testid=whatif-toggle]').count() === 1, 'the panel did not close');
  });

  const hoverTimes = await readabilityChecks({ page, check, assert, OUT, cliPlan, cliPreset, serverUrl: server.url, context, ROOT });
  const modelTimes = await modelChecks({ page, check, assert, OUT, ROOT, CLI });
  await devicesChecks({ page, check, assert, OUT, ROOT, CLI });
  await keyboardChecks({ page, check, assert });
  await restoreChecks({ page, context, check, assert, OUT, serverUrl: server.url });
  await legendChecks({ page, check, assert, OUT });
  await dropChecks({ page, check, assert, ROOT, cliPlan });
  await scaleChecks({ page, check, assert, OUT });
  await compareSettingsChecks({ page, check, assert, OUT, CLI });
  const latencyTimes = await latencyChecks({ page, check, assert });
  await page.setViewportSize({ width: 1600, height: 1000 });

  await explainChecks({ page, check, assert, cliPlan, cliPreset, OUT, CLI });
  const hostileTimes = await hostileChecks({ page, context, check, skip, big: BIG, assert, cliPlan, serverUrl: server.url, consoleErrors });

  await check('no console errors', async () => {
    assert(consoleErrors.length === 0, consoleErrors.join(' | '));
  });

  console.log('\ntimeline render times:');
  for (const t of timings) console.log(`  ${t}`);
  console.log('\nhover times (in the browser, performance marks):');
  for (const t of hoverTimes) console.log(`  ${t}`);
  console.log('\nmodel page times (in the browser):');
  for (const t of modelTimes) console.log(`  ${t}`);
  console.log('\n70B setting changes (in the browser, latency.mjs; issue 28 goal 7: within 150 ms, no task over 100 ms):');
  for (const t of latencyTimes) console.log(`  ${t}`);
  console.log('\nwhat-if times (in the browser):');
  for (const t of whatifTimes) console.log(`  ${t}`);
  console.log('\nhuge input (in the browser, e2e-hostile.mjs):');
  for (const t of hostileTimes) console.log(`  ${t}`);
} finally {
  await context.close();
  await server.close();
  rmSync(profile, { recursive: true, force: true });
}
writeFileSync(path.join(OUT, 'results.txt'), `${results.join('\n')}\n`);
console.log(`\nscreenshots: ${OUT}`);
console.log(`e2e: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped (make test-big runs them)` : ''}`);
process.exit(failed ? 1 : 0);
