// wasm-gguf.test.js: the GGUF header reader through the WebAssembly module and gguf-file.js.
//
// Real files (tests/models-real/gguf) must give the tensor counts and full lengths of their
// index.tsv and the hyperparameters of the models-real README; a prefix asks for more bytes and
// readGgufHeader reads only about the header, even of a file of 8 GiB; bad files (built here
// byte by byte) throw an Error with code 'invalid-input' whose message starts with the byte
// offset, and the instance keeps working with nothing left allocated.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

import { readGgufHeader } from '../../web/src/core/gguf-file.js';
import { ROOT, loadWasm } from './wasm-helpers.js';

const galloc = await loadWasm();
const FIXTURES = path.join(ROOT, 'tests/models-real/gguf');

const index = readFileSync(path.join(FIXTURES, 'index.tsv'), 'utf8').trim().split('\n').slice(1)
  .map((line) => line.split('\t'))
  .map(([file, arch, bytes, nTensors, fullLength]) => ({ file, arch, bytes: Number(bytes), nTensors: Number(nTensors), fullLength: Number(fullLength) }));

const fixture = (file) => new Uint8Array(readFileSync(path.join(FIXTURES, file)));
const kv = (summary, key) => summary.kv.find((k) => k.key === key)?.value;

// a little-endian GGUF writer for hand-built files
class Writer {
  constructor() { this.bytes = []; }
  u8(v) { this.bytes.push(v & 0xff); return this; }
  u32(v) { for (let i = 0; i < 4; i++) this.u8(Number((BigInt(v) >> BigInt(8 * i)) & 0xffn)); return this; }
  u64(v) { for (let i = 0; i < 8; i++) this.u8(Number((BigInt.asUintN(64, BigInt(v)) >> BigInt(8 * i)) & 0xffn)); return this; }
  raw(s) { for (const b of new TextEncoder().encode(s)) this.u8(b); return this; }
  str(s) { return this.u64(new TextEncoder().encode(s).length).raw(s); }
  header(version, nTensors, nKv) { return this.raw('GGUF').u32(version).u64(nTensors).u64(nKv); }
  kvU32(key, v) { return this.str(key).u32(4).u32(v); }
  done() { return new Uint8Array(this.bytes); }
}

describe('real GGUF files', () => {
  it('has the ten files of models-real', () => expect(index.length).toBe(10));

  for (const row of index) {
    it(`${row.file}: counts, lengths and architecture`, () => {
      const bytes = fixture(row.file);
      expect(bytes.length).toBe(row.bytes);
      const s = galloc.ggufSummary(bytes, { fileSize: bytes.length });
      expect(s.format).toBe('galloc-gguf-summary');
      expect(s.version).toBe(3);
      expect(s.architecture).toBe(row.arch);
      expect(s.n_tensors).toBe(row.nTensors);
      expect(s.tensors.length).toBe(row.nTensors);
      expect(s.file_size).toBe(row.fullLength);
      expect(s.data_offset).toBe(row.bytes);
      expect(s.llama_refusal).toBe('');
      expect(s.tensor_types.reduce((n, t) => n + t.count, 0)).toBe(row.nTensors);
    });
  }

  it('llama3-8b: the hyperparameters of the README', () => {
    const s = galloc.ggufSummary(fixture('llama3-8b.meta.gguf'));
    expect(kv(s, 'llama.embedding_length')).toBe(4096);
    expect(kv(s, 'llama.block_count')).toBe(32);
    expect(kv(s, 'llama.attention.head_count')).toBe(32);
    expect(kv(s, 'llama.attention.head_count_kv')).toBe(8);
    expect(kv(s, 'llama.feed_forward_length')).toBe(14336);
    expect(kv(s, 'llama.vocab_size')).toBe(128256);
    expect(kv(s, 'llama.rope.freq_base')).toBe(500000);
    expect(kv(s, 'llama.attention.layer_norm_rms_epsilon')).toBe(0.00001);
    const embd = s.tensors.find((t) => t.name === 'token_embd.weight');
    expect(embd).toEqual({ name: 'token_embd.weight', type: 'f16', ne: [4096, 128256], nbytes: 4096 * 128256 * 2, offset: 0 });
  });

  it('gemma3-4b: sliding window and 34 layers', () => {
    const s = galloc.ggufSummary(fixture('gemma3-4b.meta.gguf'));
    expect(kv(s, 'gemma3.block_count')).toBe(34);
    expect(kv(s, 'gemma3.attention.sliding_window')).toBe(1024);
  });
});

describe('prefixes', () => {
  it('a short prefix asks for more bytes, never past the header', () => {
    const bytes = fixture('qwen3-tiny.meta.gguf');
    const whole = galloc.ggufSummary(bytes);
    for (const cut of [0, 3, 4, 23, 24, 100, 1000, whole.header_size - 1]) {
      const r = galloc.ggufSummary(bytes.subarray(0, cut));
      expect(r.needBytes).toBeGreaterThan(cut);
      expect(r.needBytes).toBeLessThanOrEqual(whole.header_size);
      expect(r.message).toMatch(/^offset \d+: /);
    }
  });

  it('readGgufHeader grows the slice as asked and returns the header bytes', async () => {
    const bytes = fixture('qwen3moe-30b-a3b.meta.gguf');
    const r = await readGgufHeader(galloc, new Blob([bytes]), { firstSlice: 64 });
    expect(r.reads).toBeGreaterThan(3);
    expect(r.header.length).toBe(r.summary.header_size);
    expect(Array.from(r.header.subarray(0, 4))).toEqual([71, 71, 85, 70]); // "GGUF"
    expect(r.bytesRead).toBeLessThan(2 * r.summary.header_size + 64);
    expect(r.summary.n_tensors).toBe(579);
  });

  it('an 8 GiB file: only about its header is read', async () => {
    const head = fixture('gpt-oss-20b.meta.gguf');
    let requested = 0;
    const size = 8 * 2 ** 30;
    const sparse = { // a Blob whose bytes past the metadata are zeros, as a sparse file reads
      size,
      slice(start, end) {
        requested += end - start;
        const out = new Uint8Array(end - start);
        out.set(head.subarray(Math.min(start, head.length), Math.min(end, head.length)));
        return new Blob([out]);
      },
    };
    const r = await readGgufHeader(galloc, sparse);
    expect(r.summary.architecture).toBe('gpt-oss');
    expect(requested).toBe(r.bytesRead);
    expect(requested).toBeLessThanOrEqual(1 << 20);
  });
});

describe('bad GGUF files', () => {
  const cases = [
    ['wrong magic', new Writer().raw('GGML').u32(3).u64(0).u64(0).done(), /^offset 0: invalid magic 'GGML'/],
    ['version 1', new Writer().header(1, 0, 0).done(), /^offset 4: GGUF version 1 is no longer supported/],
    ['version 4', new Writer().header(4, 0, 0).done(), /^offset 4: GGUF version 4 is newer than 3/],
    ['negative tensor count', new Writer().header(3, -1, 0).done(), /^offset 8: tensor count -1/],
    ['2^40 keys in 24 bytes', new Writer().header(3, 0, 2 ** 40).done(), /^offset 24: key 0: .*end of the file/],
    ['a key longer than the file', new Writer().header(3, 0, 1).u64(1000).raw('abc').done(), /^offset 32: key 0: key \(1000 bytes\) runs past the end of the file \(35 bytes\)/],
    ['a string past 1 GiB', new Writer().header(3, 0, 1).str('general.name').u32(8).u64(2 ** 31).done(), /^offset 48: key 'general.name': string of 2147483648 bytes exceeds the maximum/],
    ['2^30 tokens in a few bytes', new Writer().header(3, 0, 1).str('tokenizer.ggml.tokens').u32(9).u32(8).u64(2 ** 30).str('a').done(),
      /^offset 69: key 'tokenizer.ggml.tokens': array of strings \(8589934592 bytes\) runs past the end of the file/],
    ['unknown value type', new Writer().header(3, 0, 1).str('general.name').u32(13).u32(0).done(), /^offset 44: key 'general.name': invalid GGUF type 13/],
    ['duplicate key', new Writer().header(3, 0, 2).kvU32('a', 1).kvU32('a', 2).done(), /^offset 41: key 'a': duplicate key/],
    ['alignment 48', new Writer().header(3, 0, 1).kvU32('general.alignment', 48).done(), /^offset 24: key 'general.alignment': alignment 48 is not a power of 2/],
    ['5 dimensions', new Writer().header(3, 1, 0).str('w').u32(5).done(), /^offset 33: tensor 0 'w': 5 dimensions/],
    ['removed tensor type', new Writer().header(3, 1, 0).str('w').u32(1).u64(32).u32(4).u64(0).done(), /^offset 45: tensor 0 'w': .*type 4 \(removed\)/],
  ];
  for (const [what, bytes, message] of cases) {
    it(`${what}: invalid-input with the offset, instance intact`, () => {
      const before = galloc.heapUsed();
      let error = null;
      try { galloc.ggufSummary(bytes, { fileSize: bytes.length }); } catch (e) { error = e; }
      expect(error).toBeInstanceOf(Error);
      expect(error.code).toBe('invalid-input');
      expect(error.message).toMatch(message);
      expect(galloc.heapUsed()).toBe(before);
      expect(galloc.ggufSummary(fixture('llama3-tiny.meta.gguf')).n_tensors).toBe(21);
    });
  }

  it('a truncated file names where it ends', () => {
    const bytes = fixture('llama3-tiny.meta.gguf').subarray(0, 777);
    expect(() => galloc.ggufSummary(bytes, { fileSize: 777 })).toThrow(/^offset \d+: .*end of the file \(777 bytes\)/);
  });

  it('bad arguments', () => {
    expect(() => galloc.ggufSummary('GGUF')).toThrow(expect.objectContaining({ code: 'bad-argument' }));
    expect(() => galloc.ggufSummary(new Uint8Array(4), { fileSize: 1.5 })).toThrow(expect.objectContaining({ code: 'bad-argument' }));
    expect(() => galloc.ggufSummary(new Uint8Array(4), { maxItems: -1 })).toThrow(expect.objectContaining({ code: 'bad-argument' }));
  });
});
