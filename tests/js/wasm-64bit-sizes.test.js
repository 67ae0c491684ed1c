// wasm-64bit-sizes.test.js: the page plans every size the CLI plans (issue 29 goal 6, issue 30 goal 2).
//
// The module's size_t has 64 bits (-sMEMORY64=2, c/wasm/wasm.mk), as the CLI's. Settings whose
// tensors or buffers pass 2 or 4 GiB, which the 32-bit module refused or wrapped, give through the
// real exports the bytes the native CLI (build/rel/galloc) prints for the same file and flags, and
// llama.cpp's own bytes where it was measured (tests/devices). Over devices the compute column is
// there, equal to `galloc model --json`.

import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { CLI, ROOT, loadWasm, requireCli } from './wasm-helpers.js';

const galloc = await loadWasm();
requireCli();
const REAL = path.join(ROOT, 'tests/models-real/gguf');
const HOSTILE = path.join(ROOT, 'tests/models-hostile');

/** the CLI's breakdown (--json) for a file or a card and flags */
const cliMemory = (source, flags) => JSON.parse(execFileSync(CLI, ['model', ...source, ...flags.split(' ').filter(Boolean), '--json'], { encoding: 'utf8' }));

/** the module's breakdown for the same */
function pageMemory(source, flags) {
  const m = galloc.openModel(source[0] === '--card' ? { card: source[1] } : { gguf: new Uint8Array(readFileSync(source[0])) });
  try {
    return m.memory(flags);
  } finally {
    m.close();
  }
}

describe('sizes past 32 bits: the module equals the CLI', () => {
  const cases = [
    // llama.cpp's CPU compute buffer 2,260,740,096 B (tests/devices/llama3-8b-rpc1-ngl0-c32768-faoff)
    ['llama3-8b -fa off -c 32768 (2.1 GiB compute; refused as too large for a 32-bit size_t)',
      [path.join(REAL, 'llama3-8b.meta.gguf')], '-c 32768 -fa off', 2260740096],
    // the attention mask alone is 4 GiB: the 32-bit module gave 1,856.22 MiB (wrapped)
    ['mistral-7b-v0.3 card -c 262144 -ub 8192 -b 8192 (5952.22 MiB)', ['--card', 'mistral-7b-v0.3'], '-c 262144 -ub 8192 -b 8192', null],
    // the 32-bit module gave 8,400,608 bytes (wrapped)
    ['gemma3 with context_length 4,194,305 (4,301,019,136 B)', [path.join(HOSTILE, 'gemma3-ctx-4m.gguf')], '', 4301019136],
    ['llama3-tiny -c 262144 -ub 8192 -b 8192 (a 4 GiB mask)', [path.join(HOSTILE, 'mask-4gib.gguf')], '-c 262144 -ub 8192 -b 8192', null],
    ['a MoE with embedding_length 2^20 (aborted the 32-bit module)', [path.join(HOSTILE, 'moe-embd-1m.gguf')], '-c 4096', null],
  ];
  for (const [what, source, flags, llamacpp] of cases) {
    it(what, () => {
      const heap = galloc.heapUsed();
      const want = cliMemory(source, flags);
      const got = pageMemory(source, flags);
      expect(got).toEqual(want);
      expect(got.buffer_types[0].compute).toBeGreaterThan(2 ** 31);
      if (llamacpp !== null) expect(got.buffer_types[0].compute).toBe(llamacpp);
      expect(galloc.heapUsed()).toBe(heap);
    });
  }

  it('the mistral card: the compute buffer line the CLI logs, 5952.22 MiB', () => {
    const m = galloc.openModel({ card: 'mistral-7b-v0.3' });
    try {
      const z = m.sizes({ n_ctx: 262144, n_ubatch: 8192, n_batch: 8192 });
      const line = `CPU compute buffer size = ${(z.buffer_types[0].compute / 1048576).toFixed(2)} MiB`;
      const cli = spawnSync(CLI, ['model', '--card', 'mistral-7b-v0.3', '-c', '262144', '-ub', '8192', '-b', '8192', '-o', '/dev/null'], { encoding: 'utf8' });
      expect(cli.stderr.split('\n')).toContain(line);
      expect(line).toBe('CPU compute buffer size = 5952.22 MiB');
    } finally {
      m.close();
    }
  });

  it('two devices: the compute column per buffer type equal to galloc model --json (2.1 GiB per device at -fa off -c 32768)', () => {
    const source = [path.join(REAL, 'llama3-8b.meta.gguf')];
    const flags = '--device rpc --device rpc -ngl 99 -c 32768 -fa off';
    const got = pageMemory(source, flags);
    expect(got).toEqual(cliMemory(source, flags));
    expect(got.buffer_types.filter((b) => b.device >= 0).map((b) => b.compute)).toEqual([2252347392, 2252349440]); // llama.cpp's (tests/devices/llama3-8b-rpc2-ngl99-c32768-faoff)
  });
});
