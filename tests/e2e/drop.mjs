// drop.mjs: e2e check that files dropped anywhere on the page are taken (called by e2e.mjs): a
// graph JSON dropped on the page plans as the CLI plans it, a GGUF dropped on the page opens as a
// model, and a graph JSON dropped on the model box is imported (it used to be refused there as a
// GGUF with an invalid magic).
import path from 'node:path';
import { readFileSync } from 'node:fs';

export async function dropChecks({ page, check, assert, ROOT, cliPlan }) {
  /** drop bytes as a named file on the element a selector names */
  const drop = async (selector, name, bytes) => {
    const dt = await page.evaluateHandle(([n, b]) => {
      const d = new DataTransfer();
      d.items.add(new File([new Uint8Array(b)], n));
      return d;
    }, [name, [...bytes]]);
    await page.dispatchEvent(selector, 'dragover', { dataTransfer: dt });
    await page.dispatchEvent(selector, 'drop', { dataTransfer: dt });
  };
  const total0 = () => page.evaluate(() => document.querySelector('[data-testid=total-0]')?.getAttribute('data-bytes') ?? null);
  await check('files dropped anywhere: a graph on the page and on the model box is imported, a GGUF opens as a model', async () => {
    const doc = { tensors: [{ name: 'a', op: 'NONE', type: 'f32', ne: [3000], flags: ['input'] },
      { name: 'b', op: 'SCALE', type: 'f32', ne: [3000], src: [0] }, { name: 'c', op: 'ADD', type: 'f32', ne: [3000], src: [1, 0], flags: ['output'] }], outputs: [2] };
    const want = String(cliPlan(doc).buffers[0].size);
    await drop('[data-testid=timeline]', 'dropped.graph.json', Buffer.from(JSON.stringify(doc)));
    await page.waitForFunction((v) => document.querySelector('[data-testid=total-0]')?.getAttribute('data-bytes') === v, want, { timeout: 10000 })
      .catch(async () => { throw new Error(`a graph dropped on the timeline: total ${await total0()}, the CLI ${want}`); });
    const doc2 = structuredClone(doc);
    doc2.tensors[0].ne = [5000]; doc2.tensors[1].ne = [5000]; doc2.tensors[2].ne = [5000];
    const want2 = String(cliPlan(doc2).buffers[0].size);
    await drop('[data-testid=model-drop]', 'on-the-box.graph.json', Buffer.from(JSON.stringify(doc2)));
    await page.waitForFunction((v) => document.querySelector('[data-testid=total-0]')?.getAttribute('data-bytes') === v, want2, { timeout: 10000 })
      .catch(async () => { throw new Error(`a graph dropped on the model box: total ${await total0()}, the CLI ${want2}; ${await page.textContent('[data-testid=model-panel]')}`); });
    await drop('[data-testid=buffer-table]', 'qwen3-tiny.meta.gguf', readFileSync(path.join(ROOT, 'tests/models-real/gguf/qwen3-tiny.meta.gguf')));
    await page.waitForSelector('[data-testid=model-summary][data-file="qwen3-tiny.meta.gguf"]', { timeout: 20000 });
    assert(await page.isVisible('[data-testid=breakdown]'), 'the dropped model shows no breakdown');
  });
}
