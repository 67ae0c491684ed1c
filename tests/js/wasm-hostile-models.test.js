// wasm-hostile-models.test.js: the hostile-model table (tests/models-hostile/cases.tsv), shared with
// the CLI's check (scripts/check-hostile.sh), through the WebAssembly module: every GGUF header and
// settings of the table gets the CLI's verdict (the same status and message, or the same compute
// buffer size as the line the CLI prints: the module's size_t has 64 bits, as the CLI's); nothing
// aborts the module. Also: the committed headers are what the table's edits make, and loadGalloc
// never hands out a stopped module.

import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { hostileCases } from '../../scripts/gen-hostile-models.mjs';
import { loadGalloc } from '../../web/src/core/galloc.js';
import { ROOT, loadWasm } from './wasm-helpers.js';

const galloc = await loadWasm();

/** galloc model's flags as the module's settings */
function settingsOf(flags) {
  const s = {};
  const keys = { '-c': 'n_ctx', '-b': 'n_batch', '-ub': 'n_ubatch', '-np': 'n_seq', '-ctk': 'type_k', '-ctv': 'type_v', '--graph': 'graph' };
  for (let i = 0; i < flags.length; i += 2) {
    const [flag, value] = [flags[i], flags[i + 1]];
    if (flag === '-fa') s.flash_attn = value === 'off' ? 0 : 1;
    else if (keys[flag]) s[keys[flag]] = /^\d+$/.test(value) ? Number(value) : value;
    else throw new Error(`flag ${flag} not understood by this test`);
  }
  return s;
}

/** the verdict: {status, text}: text the lines the CLI prints for sizes, or the error's message */
function verdict(c) {
  let m;
  try {
    m = galloc.openModel({ gguf: new Uint8Array(readFileSync(c.file)) });
    const z = m.sizes(settingsOf(c.flags));
    return { status: 'ok', text: z.buffer_types.map((b) => `${b.name} compute buffer size = ${(b.compute / 1048576).toFixed(2)} MiB`).join('\n') };
  } catch (e) {
    if (!e.code) throw e;
    return { status: e.code, text: e.message };
  } finally {
    m?.close();
  }
}

describe('the hostile-model table', () => {
  it('the committed headers are what the table makes', () => {
    execFileSync(process.execPath, [path.join(ROOT, 'scripts/gen-hostile-models.mjs'), '--check']);
  });

  for (const c of hostileCases()) {
    it(`${c.name}: ${c.status}, as the CLI`, () => {
      const heap = galloc.heapUsed();
      const v = verdict(c);
      const { status, message } = c;
      // the message is a pattern as grep reads it in the CLI's check (a basic regular expression)
      const re = new RegExp(message.replace(/[?+(){}|]/g, '\\$&'));
      expect({ status: v.status, text: re.test(v.text) ? message : v.text }).toEqual({ status, text: message });
      expect(galloc.heapUsed()).toBe(heap);
    });
  }
});

describe('loadGalloc after a module stopped', () => {
  it('returns a live instance, not the stopped one, even when called at once', async () => {
    const g = await loadGalloc();
    // a document pointer far outside the heap: the reader's first load traps
    expect(() => g.call(() => g.m._galloc_js_plan(0x7ffffff0, 8))).toThrow(/galloc module stopped/);
    const again = await loadGalloc();
    expect(again).not.toBe(g);
    expect(again.dead).toBe(null);
    expect(again.version()).toBe(g.dead === null ? g.version() : again.version());
    expect(await loadGalloc()).toBe(again); // and shared from then on
  });
});
