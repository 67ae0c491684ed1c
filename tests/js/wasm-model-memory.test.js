// wasm-model-memory.test.js: llama.cpp's memory breakdown per buffer type through the WebAssembly module.
//
// Every setting of tests/devices (llama.cpp over RPC devices and over llvmpipe, its bytes copied from
// ../shared/devices): GallocModel.memory(flags) gives llama.cpp's model, context and compute bytes per
// buffer type, the same buffer types (compute over devices too: the module's size_t has 64 bits, as the
// CLI's; llama3-8b -fa off -c 32768 has compute buffers of 2.1 GiB); the CPU alone has its compute
// buffer; flags llama.cpp refuses throw naming the flag.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { ROOT, loadWasm } from './wasm-helpers.js';

const galloc = await loadWasm();
const DEV = path.join(ROOT, 'tests/devices');
const gguf = (model) => new Uint8Array(readFileSync(path.join(ROOT, 'tests/models-real/gguf', `${model}.meta.gguf`)));
const rows = readFileSync(path.join(DEV, 'manifest.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));

describe('memory breakdown, against llama.cpp', () => {
  for (const model of [...new Set(rows.map((r) => r[1]))]) {
    it(`${model}: model, context and compute bytes per buffer type at every setting`, () => {
      const m = galloc.openModel({ gguf: gguf(model) });
      try {
        for (const [setting, , flags] of rows.filter((r) => r[1] === model)) {
          const mem = m.memory(flags);
          expect(mem.format).toBe('galloc-memory');
          expect(mem.version).toBe(1);
          const want = readFileSync(path.join(DEV, `${setting}.breakdown.tsv`), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
          expect(mem.buffer_types.map((b) => b.name).sort(), setting).toEqual(want.map((w) => w[0]).sort());
          for (const [name, , where, model_b, context_b, compute_b] of want) {
            const b = mem.buffer_types.find((x) => x.name === name);
            expect([b.model, b.context, b.compute], `${setting} ${name}`).toEqual([Number(model_b), Number(context_b), Number(compute_b)]);
            expect(b.device === -1, `${setting} ${name}`).toBe(where === 'host');
          }
        }
      } finally {
        m.close();
      }
    });
  }

  it('the CPU alone: one buffer type with its compute buffer', () => {
    const m = galloc.openModel({ gguf: gguf('llama3-tiny') });
    try {
      const mem = m.memory('-c 4096 -b 512 -ub 512 -fa off');
      expect(mem.buffer_types.length).toBe(1);
      expect(mem.buffer_types[0].name).toBe('CPU');
      expect(mem.buffer_types[0].device).toBe(-1);
      expect((mem.buffer_types[0].compute / 1048576).toFixed(2)).toBe('43.01'); // llama.cpp's log (models-real)
      expect(mem.buffer_types[0].context).toBe(4 * 1048576); // the KV cache galloc model logs (4.00 MiB)
    } finally {
      m.close();
    }
  });

  it("llama.cpp's --fit: the flags galloc model --fit prints", () => {
    const m = galloc.openModel({ gguf: gguf('llama3-8b') });
    try {
      // the host alone, 17 GiB: 16607 MiB at the training context; the context is lowered (the CLI's answer)
      const r = m.fit('--host-memory 17GiB');
      expect([r.format, r.status, r.flags, r.n_ctx, r.n_gpu_layers]).toEqual(['galloc-fit', 'success', '-c 6400 -ngl -1', 6400, -1]);
      expect(r.log).toContain('common_params_fit_impl: entire model can be fit by reducing context');
      expect(r.memory.buffer_types[0].name).toBe('CPU');
      const f = m.fit('--host-memory 16GiB');
      expect([f.status, f.reason]).toEqual(['failure', 'was unable to fit model into system memory by reducing context, abort']);
      expect(f.memory).toBe(null);
      // over a device: the CLI's -c 4096 -ngl 14 (llama-fit-params' choice, tests/fit), compute included
      const d = m.fit('--device rpc:8GiB');
      expect(d.flags).toBe('-c 4096 -ngl 14');
      expect(d.memory.buffer_types.every((b) => typeof b.compute === 'number')).toBe(true);
      expect(() => m.fit('--fit-target x')).toThrow(/^--fit-target: 'x' is not MiB/);
    } finally {
      m.close();
    }
  });

  it('flags llama.cpp refuses throw, naming the flag', () => {
    const m = galloc.openModel({ gguf: gguf('llama3-8b') });
    try {
      expect(() => m.memory('--device rpc -ot blk=RPC9')).toThrow(/^-ot: unknown buffer type 'RPC9'/);
      expect(() => m.memory('--device gpu')).toThrow(/^--device: unknown device kind 'gpu'/);
      expect(() => m.memory('-c 4096 --bogus')).toThrow(/^unknown option '--bogus'/);
      expect(m.memory('--device cuda:12GiB -ngl 16 -c 4096').buffer_types.map((b) => b.name)).toEqual(['CUDA0', 'CUDA_Host', 'CPU']);
    } finally {
      m.close();
    }
  });
});
