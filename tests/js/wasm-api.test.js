// wasm-api.test.js: the JS API of web/src/core/galloc.js over the real WebAssembly module:
// loading once (and fresh instances), version, presets, documents given as objects, text or
// with BigInt numbers, UTF-8 crossing both ways, normalize(), and the errors' shape.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { loadGalloc } from '../../web/src/core/galloc.js';
import { ROOT, cliError, cliPlanText, loadWasm, runCli } from './wasm-helpers.js';

const galloc = await loadWasm();

/** a graph given by its outputs, with a name outside ASCII */
function small(name = 'naïve ✓ 名前') {
  return {
    format: 'galloc-graph',
    version: 1,
    name,
    tensors: [
      { name: 'a', op: 'NONE', type: 'f32', ne: [8], flags: ['input'] },
      { name: 'b', op: 'NONE', type: 'f32', ne: [8] },
      { name: 'c', op: 'ADD', type: 'f32', ne: [8], src: [0, 1] },
      { name: 'd', op: 'SCALE', type: 'f32', ne: [8], src: [2], flags: ['output'] },
    ],
    outputs: [3],
  };
}

describe('loading', () => {
  it('loads once', async () => {
    expect((await loadGalloc()) === galloc).toBe(true);
    expect((await loadGalloc({ wasmUrl: 'file:///nowhere/galloc.wasm' })) === galloc).toBe(true); // options of later calls are ignored
  });

  it('loads the module of the factory given, not the one an earlier call loaded with another', async () => {
    const galloc_mjs = (await import('../../build/wasm/galloc.mjs')).default;
    let made = 0;
    const factory = async (options) => { made++; return galloc_mjs(options); }; // as bench-wasm.mjs gives its module's
    const other = await loadGalloc({ factory });
    expect(made).toBe(1);
    expect(other === galloc).toBe(false);
    expect((await loadGalloc({ factory })) === other).toBe(true); // once per factory
    expect(made).toBe(1);
    expect((await loadGalloc()) === galloc).toBe(true);
    expect(other.planText(small())).toBe(galloc.planText(small()));
  });

  it('loads fresh instances from wasmBinary, independent of the shared one', async () => {
    const wasmBinary = readFileSync(path.join(ROOT, 'build/wasm/galloc.wasm'));
    const other = await loadGalloc({ fresh: true, wasmBinary });
    expect(other === galloc).toBe(false); // (objects compared as booleans: no dump of the heap)
    expect(other.planText(small())).toBe(galloc.planText(small()));
  });

  it('rejects when the .wasm is not there, and the shared instance is unharmed', async () => {
    await expect(loadGalloc({ fresh: true, wasmUrl: new URL('file:///nowhere/galloc.wasm') })).rejects.toThrow();
    expect(galloc.version()).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe('calls', () => {
  it('version()', () => {
    expect(galloc.version()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('presets() and preset()', () => {
    const presets = galloc.presets();
    expect(presets.length).toBeGreaterThanOrEqual(14);
    for (const { name, description } of presets) {
      expect(typeof name).toBe('string');
      expect(typeof description).toBe('string');
      const doc = galloc.preset(name);
      expect(doc.format).toBe('galloc-graph');
      expect(doc.name).toBe(name);
      expect(JSON.parse(galloc.presetText(name))).toEqual(doc);
    }
  });

  it('preset() builds every name the CLI builds to the same bytes, and refuses what the CLI refuses', () => {
    // the synthetic llama-like baselines of the benchmarks are no presets, in the CLI as in the module
    for (const name of ['llama-7b-decode', 'llama-tiny', 'test_view_inplace', 'llama-3.1-8b-decode']) {
      const cli = runCli(['preset', name]);
      expect(cli.status, `${name}: ${cli.stderr}`).toBe(0);
      expect(galloc.presetText(name), name).toBe(cli.stdout);
    }
    for (const name of ['llama-7b-pp512', 'llama-70b-pp512', 'llama-7b-pp5120']) {
      expect(runCli(['preset', name]).status, name).not.toBe(0);
      let error = null;
      try { galloc.preset(name); } catch (e) { error = e; }
      expect(error?.code, name).toBe('not-found');
    }
  });

  it('plan() takes an object or text and returns the parsed plan', () => {
    const fromObject = galloc.plan(small());
    const fromText = galloc.plan(JSON.stringify(small()));
    expect(fromObject).toEqual(fromText);
    expect(fromObject.format).toBe('galloc-plan');
    expect(fromObject.tensors.map((t) => [t.chunk, t.offset])).toEqual([[0, 0], [0, 32], [0, 0], [0, 0]]);
    expect(galloc.planText(small())).toBe(cliPlanText(JSON.stringify(small())));
  });

  it('UTF-8 crosses both ways', () => {
    const name = 'naïve ✓ 名前 🚀';
    expect(galloc.plan(small(name)).name).toBe(name);
    expect(galloc.normalize(small(name)).name).toBe(name);
  });

  it('normalize() builds nodes and leafs from outputs and fills in defaults', () => {
    const doc = galloc.normalize(small());
    expect(doc.nodes).toEqual([2, 3]);
    expect(doc.leafs).toEqual([0, 1]);
    expect(doc.buffer_types).toEqual([{ name: 'host', alignment: 32, max_size: null }]);
    expect(galloc.plan(doc)).toEqual(galloc.plan(small()));
  });

  it('normalize() keeps which unary op or GLU a tensor computes, also one the tables lack, and refuses a malformed one at its path', () => {
    const doc = {
      tensors: [
        { name: 'x', op: 'NONE', type: 'f32', ne: [8], flags: ['input'] },
        { name: 's', op: 'UNARY', unary_op: 'SILU', type: 'f32', ne: [8], src: [0] },
        { name: 'g', op: 'GLU', glu_op: 'SWIGLU', type: 'f32', ne: [4], src: [1] },
      ],
      outputs: [2],
    };
    const out = galloc.normalize(doc);
    expect(out.tensors[1]).toMatchObject({ op: 'UNARY', unary_op: 'SILU' });
    expect(out.tensors[2]).toMatchObject({ op: 'GLU', glu_op: 'SWIGLU' });
    expect(galloc.normalize({ ...doc, tensors: [doc.tensors[0], { ...doc.tensors[1], unary_op: 'SILLY' }, doc.tensors[2]] }).tensors[1])
      .toMatchObject({ op: 'UNARY', unary_op: 'SILLY' });
    expect(() => galloc.normalize({ ...doc, tensors: [doc.tensors[0], { ...doc.tensors[1], unary_op: 'SIL LY' }, doc.tensors[2]] }))
      .toThrow('tensors[1].unary_op: unknown unary_op "SIL LY"');
    expect(galloc.plan(doc).buffers[0].size).toBe(galloc.plan(out).buffers[0].size);
  });

  it('BigInt numbers in a document object are written as decimal strings', () => {
    const doc = { ...small(), buffer_types: [{ name: 'host', alignment: 32n, max_size: 64n }] };
    expect(galloc.plan(doc).buffers[0].max_size).toBe(64);
  });

  it('errors are Errors with the library message, a code and a status', () => {
    let error;
    try {
      galloc.plan({ ...small(), outputs: [9] });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toMatch(/^outputs\[0\]: /);
    expect(error.code).toBe('invalid-input');
    expect(error.status).toBe(1);
    expect(galloc.plan(small()).format).toBe('galloc-plan');
  });

  it('out of memory is a status and a message, not an abort', () => {
    const m = galloc.m; // the raw exports
    expect(m._galloc_js_alloc(0x7ff00000)).toBe(0); // more than the 2 GiB the heap may grow to
    expect(m._galloc_js_last_status()).toBe(3);
    expect(galloc.plan(small()).format).toBe('galloc-plan');
  });

  it('a trap inside the module stops that instance only', async () => {
    const other = await loadGalloc({ fresh: true });
    // a document pointer far outside the heap: the reader's first load traps
    expect(() => other.call(() => other.m._galloc_js_plan(0x7ffffff0, 8))).toThrow(/galloc module stopped/);
    let error;
    try {
      other.version();
    } catch (e) {
      error = e;
    }
    expect(error.code).toBe('module-aborted');
    expect(galloc.plan(small()).format).toBe('galloc-plan');
  });
});

describe('statuses', () => {
  /** the error fn throws */
  function thrown(fn) {
    try {
      fn();
    } catch (e) {
      return e;
    }
    throw new Error('no error');
  }

  it('error codes are the library\'s status names, read from the module', () => {
    expect(galloc.statusNames).toEqual(['ok', 'invalid-input', 'limit', 'out-of-memory', 'bad-argument', 'not-found', 'io-error', 'declined']);
  });

  it('the same input fails with the same status in WASM and in the CLI (its exit code table)', () => {
    const tooManyBufferTypes = JSON.stringify({ ...small(), buffer_types: Array.from({ length: 1025 }, (_, i) => ({ name: `b${i}` })) });
    const cases = [
      // [document text, WASM code, CLI exit status]
      [JSON.stringify({ ...small(), outputs: [9] }), 'invalid-input', 3],
      ['{"tensors": [', 'invalid-input', 3],
      [tooManyBufferTypes, 'limit', 3],
      ['['.repeat(100000), 'limit', 3],
    ];
    for (const [text, code, exit] of cases) {
      const e = thrown(() => galloc.plan(text));
      expect(e.code, text.slice(0, 40)).toBe(code);
      expect(e.status).toBe(galloc.statusNames.indexOf(code));
      const cli = cliError(text);
      expect(cli.status, text.slice(0, 40)).toBe(exit);
      expect(cli.message).toBe(e.message);
    }
    const e = thrown(() => galloc.preset('no-such-preset'));
    expect(e.code).toBe('not-found');
  });
});

