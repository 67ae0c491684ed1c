// ui-devices.test.js: the page's devices (web/src/core/devices.js) against the native CLI.
//
// The flags the page builds for its settings, devices and placement, read by the WASM module
// (GallocModel.memory) and by `galloc model FILE ... --json`: the same buffer types with the same
// model, context and compute bytes, over devices too (the module's size_t has 64 bits, as the CLI's).
// Per device sums and the fit rule on a breakdown worked out by hand; typed memories and -ts lists checked.

import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { ROOT, CLI, loadWasm } from './wasm-helpers.js';
import { START_SETTINGS } from '../../web/src/core/model-settings.js';
import { START_PLACEMENT, memoryArgs, deviceRows, parseDeviceMemory, checkTensorSplit, DEVICE_KINDS, FIT_MARGIN } from '../../web/src/core/devices.js';

const galloc = await loadWasm();
const FILE = path.join(ROOT, 'tests/models-real/gguf/llama3-8b.meta.gguf');
const GIB = 1024;

const cli = (args) => JSON.parse(execFileSync(CLI, ['model', FILE, ...args, '--json'], { encoding: 'utf8' }));

describe('the page\'s flags, read by the module and the CLI', () => {
  const m = galloc.openModel({ gguf: new Uint8Array(readFileSync(FILE)) });
  const cases = [
    ['the CPU alone', START_SETTINGS, [], START_PLACEMENT],
    ['two CUDA GPUs, -ngl 20 -ts 3,1', START_SETTINGS, [{ kind: 'cuda', memoryMiB: 24 * GIB }, { kind: 'cuda', memoryMiB: 12 * GIB }], { ...START_PLACEMENT, ngl: 20, ts: '3,1' }],
    ['rpc and llvmpipe, -nkvo, q8_0 cache, -np 2', { ...START_SETTINGS, type_k: 'q8_0', type_v: 'q8_0', n_seq: 2 }, [{ kind: 'rpc', memoryMiB: 16 * GIB }, { kind: 'llvmpipe', memoryMiB: 2048 }], { ...START_PLACEMENT, nkvo: true }],
    ['one ROCm GPU, -sm none, no op offload, -fa off', { ...START_SETTINGS, flash_attn: 0, n_ctx: 8192 }, [{ kind: 'rocm', memoryMiB: 8 * GIB }], { ...START_PLACEMENT, sm: 'none', opOffload: false, ngl: 10 }],
  ];
  for (const [what, s, devs, p] of cases) {
    it(what, () => {
      const args = memoryArgs(s, devs, p);
      const page = m.memory(args.join(' '));
      const want = cli(args);
      const row = (b) => [b.name, b.device, b.model, b.context, b.compute];
      expect(page.buffer_types.map(row)).toEqual(want.buffer_types.map(row));
      expect(want.buffer_types.every((b) => typeof b.compute === 'number')).toBe(true);
    });
  }

  it('every kind the page offers is one the CLI takes', () => {
    for (const k of DEVICE_KINDS) expect(() => cli(['--device', `${k.kind}:${k.defaultMiB}MiB`, '-c', '512'])).not.toThrow();
    expect(() => execFileSync(CLI, ['model', FILE, '--device', 'gpu', '--json'], { stdio: 'pipe' })).toThrow();
  });
});

describe('per device and fit, worked by hand', () => {
  const MIB = 1048576;
  const memory = { buffer_types: [
    { name: 'CUDA0', device: 0, model: 10 * 1024 * MIB, context: 1024 * MIB, compute: 512 * MIB },
    { name: 'CUDA1', device: 1, model: 11 * 1024 * MIB, context: 512 * MIB, compute: 512 * MIB },
    { name: 'CUDA_Host', device: -1, model: 700 * MIB, context: 0, compute: 20 * MIB },
    { name: 'CPU', device: -1, model: 0, context: 300 * MIB, compute: 0 },
  ] };
  it('sums per device, the host\'s buffer types together; fits when used + 1 GiB <= memory', () => {
    const rows = deviceRows(memory, [{ kind: 'cuda', memoryMiB: 16 * 1024 }, { kind: 'cuda', memoryMiB: 12 * 1024 }], 2048);
    // device 0: 10 GiB + 1 GiB + 0.5 GiB = 11.5 GiB of 16: 16 - 1 - 11.5 = 3.5 GiB to spare
    expect(rows[0]).toMatchObject({ names: ['CUDA0'], used: 11.5 * 1024 * MIB, spare: 3.5 * 1024 * MIB, fits: true });
    // device 1: 11 + 0.5 + 0.5 = 12 GiB of 12: 1 GiB over with the margin
    expect(rows[1]).toMatchObject({ used: 12 * 1024 * MIB, spare: -1024 * MIB, fits: false });
    // host: 700 + 20 + 300 MiB = 1020 MiB of 2048: 2048 - 1024 - 1020 = 4 MiB to spare
    expect(rows[2]).toMatchObject({ device: -1, names: ['CUDA_Host', 'CPU'], model: 700 * MIB, context: 300 * MIB, compute: 20 * MIB, spare: 4 * MIB, fits: true });
    expect(FIT_MARGIN).toBe(1024 * MIB);
  });
});

describe('typed values', () => {
  it('memories: a bare number is GiB; MiB and GiB; nonsense refused', () => {
    expect(parseDeviceMemory('24')).toBe(24576);
    expect(parseDeviceMemory('12000 MiB')).toBe(12000);
    expect(parseDeviceMemory('1.5 GiB')).toBe(1536);
    expect(() => parseDeviceMemory('12 bananas')).toThrow(/not a memory size/);
    expect(() => parseDeviceMemory('0')).toThrow(/above 0/);
    expect(() => parseDeviceMemory('0.3 MiB')).toThrow(/whole number/);
  });
  it('-ts: numbers, at most one per device, not all zero', () => {
    expect(checkTensorSplit(' 3, 1 ', 2)).toBe('3,1');
    expect(checkTensorSplit('', 2)).toBe('');
    expect(() => checkTensorSplit('3,1,1', 2)).toThrow(/3 proportions for 2 devices/);
    expect(() => checkTensorSplit('a,b', 2)).toThrow(/not a list of numbers/);
    expect(() => checkTensorSplit('0,0', 2)).toThrow(/every proportion is 0/);
  });
  it('the flags line: placement only with devices, defaults left out', () => {
    expect(memoryArgs(START_SETTINGS, [], { ...START_PLACEMENT, ngl: 5 }).join(' ')).toBe('-c 4096 -b 2048 -ub 512 -fa on');
    expect(memoryArgs(START_SETTINGS, [{ kind: 'cuda', memoryMiB: 24576 }], { ...START_PLACEMENT, ngl: 5, nkvo: true, opOffload: false, sm: 'none' }).join(' '))
      .toBe('-c 4096 -b 2048 -ub 512 -fa on --device cuda:24576MiB -ngl 5 -sm none -nkvo --no-op-offload');
  });
});

describe('a line of flags back to the page\'s state (links)', () => {
  it('round trip: what memoryArgs writes, parseMemoryArgs reads back', async () => {
    const { parseMemoryArgs } = await import('../../web/src/core/devices.js');
    const cases = [
      [START_SETTINGS, [], START_PLACEMENT],
      [{ ...START_SETTINGS, n_ctx: 40960, n_batch: 512, n_ubatch: 256, flash_attn: 0, type_k: 'q8_0', n_seq: 4 },
        [{ kind: 'cuda', memoryMiB: 24576 }, { kind: 'rocm', memoryMiB: 12000 }], { ...START_PLACEMENT, ngl: 20, ts: '3,1', nkvo: true, opOffload: false }],
      [START_SETTINGS, [{ kind: 'metal', memoryMiB: 16384 }, { kind: 'vulkan', memoryMiB: 8192 }], { ...START_PLACEMENT, sm: 'none', mg: 1 }],
    ];
    for (const [s, d, p] of cases) {
      expect(parseMemoryArgs(memoryArgs(s, d, p), START_SETTINGS)).toEqual({ settings: s, devices: d, placement: p });
    }
  });
  it('damaged lines are refused, naming the flag', async () => {
    const { parseMemoryArgs } = await import('../../web/src/core/devices.js');
    expect(() => parseMemoryArgs(['-c', 'x'], START_SETTINGS)).toThrow(/^-c: 'x'/);
    expect(() => parseMemoryArgs(['--device', 'gpu:12MiB'], START_SETTINGS)).toThrow(/^--device/);
    expect(() => parseMemoryArgs(['--bogus'], START_SETTINGS)).toThrow(/--bogus/);
    expect(() => parseMemoryArgs(['--device', 'cuda:100MiB', '-ts', '1,1,1'], START_SETTINGS)).toThrow(/^-ts/);
    expect(() => parseMemoryArgs(['-mg', '2'], START_SETTINGS)).toThrow(/^-mg/);
  });
});
