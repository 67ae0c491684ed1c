// gen-hostile-models.mjs: writes the GGUF headers of the hostile-model table
// (tests/models-hostile/cases.tsv) from the metadata-only files of tests/models-real/gguf.
//
// usage: node scripts/gen-hostile-models.mjs [--check]
// Each row names a base file and edits of its header: `KEY=TYPE:VALUE` sets a KV pair (KEY starting
// with '.' is under the file's architecture; TYPE u32 i32 u64 f32 f64 bool str, or arr:T:V,V,...
// where `V*N` repeats V N times; in str values \xHH is that byte), `-KEY` deletes one, `tensor:NAME=TYPE[:NE0,NE1,..]` retypes (and reshapes) the
// tensors NAME matches (`*` a layer number; types f32 f16 bf16; data offsets follow). Rows without edits use the base file as it is. The files are
// committed; --check exits 1 when a committed file differs from what the table makes (the Vitest
// suite runs it, so table and files cannot drift).
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIR = path.join(ROOT, 'tests/models-hostile');
const BASES = path.join(ROOT, 'tests/models-real/gguf');

const T = { u8: 0, i8: 1, u16: 2, i16: 3, u32: 4, i32: 5, f32: 6, bool: 7, str: 8, arr: 9, u64: 10, i64: 11, f64: 12 };
const SIZE = [1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8];
const GGML = { f32: [0, 4], f16: [1, 2], bf16: [30, 2] }; // ggml type number, bytes per element

/** reads a GGUF header: {version, kvs: [{key, bytes}], tensors: [{name, ne, type}]} (bytes: type + value as in the file) */
export function parseGguf(buf) {
  const dv = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  let pos = 0;
  const u32 = () => { const v = dv.getUint32(pos, true); pos += 4; return v; };
  const u64 = () => { const v = dv.getBigUint64(pos, true); pos += 8; return Number(v); };
  const str = () => { const n = u64(); const s = new TextDecoder().decode(buf.subarray(pos, pos + n)); pos += n; return s; };
  const skip = (t) => {
    if (t === T.str) { const n = u64(); pos += n; return; }
    if (t === T.arr) { const et = u32(); const n = u64(); for (let i = 0; i < n; i++) skip(et); return; }
    pos += SIZE[t];
  };
  if (new TextDecoder().decode(buf.subarray(0, 4)) !== 'GGUF') throw new Error('not a GGUF file');
  pos = 4;
  const version = u32();
  const nTensors = u64();
  const nKv = u64();
  const kvs = [];
  for (let i = 0; i < nKv; i++) {
    const key = str();
    const start = pos;
    skip(u32());
    kvs.push({ key, bytes: buf.slice(start, pos) });
  }
  const tensors = [];
  for (let i = 0; i < nTensors; i++) {
    const name = str();
    const nd = u32();
    const ne = [];
    for (let d = 0; d < nd; d++) ne.push(u64());
    const type = u32();
    u64(); // offset: recomputed on writing
    tensors.push({ name, ne, type });
  }
  return { version, kvs, tensors };
}

class Writer {
  constructor() { this.parts = []; this.len = 0; }
  bytes(b) { this.parts.push(b); this.len += b.length; }
  num(v, n, float) {
    const b = new Uint8Array(n);
    const dv = new DataView(b.buffer);
    if (float) { if (n === 4) dv.setFloat32(0, v, true); else dv.setFloat64(0, v, true); }
    else if (n === 8) dv.setBigUint64(0, BigInt.asUintN(64, BigInt(v)), true);
    else if (n === 4) dv.setUint32(0, v >>> 0, true);
    else if (n === 2) dv.setUint16(0, v & 0xffff, true);
    else dv.setUint8(0, v & 0xff);
    this.bytes(b);
  }
  str(s) { const b = new TextEncoder().encode(s); this.num(b.length, 8); this.bytes(b); }
  done() { const out = new Uint8Array(this.len); let o = 0; for (const p of this.parts) { out.set(p, o); o += p.length; } return out; }
}

const number = (s) => ({ inf: Infinity, '-inf': -Infinity, nan: NaN })[s] ?? Number(s);

function writeScalar(w, t, v) {
  if (t === 'str') w.str(v.replace(/\\x([0-9a-fA-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16))));
  else if (t === 'bool') w.num(v === 'true' ? 1 : 0, 1);
  else w.num(number(v), SIZE[T[t]], t === 'f32' || t === 'f64');
}

/** the type and value bytes of `TYPE:VALUE` */
function valueBytes(spec) {
  const w = new Writer();
  const [t, ...rest] = spec.split(':');
  if (t === 'arr') {
    const [et, list = ''] = [rest[0], rest.slice(1).join(':')];
    const items = list === '' ? [] : list.split(',').flatMap((x) => { const [v, n] = x.split('*'); return Array(n ? Number(n) : 1).fill(v); });
    w.num(T.arr, 4); w.num(T[et], 4); w.num(items.length, 8);
    for (const v of items) writeScalar(w, et, v);
  } else {
    if (T[t] === undefined) throw new Error(`unknown type ${t}`);
    w.num(T[t], 4);
    writeScalar(w, t, rest.join(':'));
  }
  return w.done();
}

/** the base file with the edits applied (the format's alignment, 32, assumed: the bases use it) */
export function applyEdits(base, edits) {
  const g = parseGguf(base);
  const arch = new TextDecoder().decode(g.kvs.find((k) => k.key === 'general.architecture').bytes.subarray(12));
  const full = (k) => (k.startsWith('.') ? arch + k : k);
  for (const e of edits) {
    if (e.startsWith('tensor:')) {
      const [name, spec] = e.slice(7).split('=');
      const [type, dims] = spec.split(':');
      const re = new RegExp(`^${name.replace(/[.]/g, '\\.').replace(/[*]/g, '\\d+')}$`);
      const hit = g.tensors.filter((x) => re.test(x.name));
      if (!hit.length || !GGML[type]) throw new Error(`edit ${e}: no tensor ${name} or type ${type}`);
      for (const t of hit) {
        t.type = GGML[type][0];
        if (dims) t.ne = dims.split(',').map(Number);
      }
    } else if (e.startsWith('-')) {
      g.kvs = g.kvs.filter((k) => k.key !== full(e.slice(1)));
    } else {
      const i = e.indexOf('=');
      const key = full(e.slice(0, i));
      const kv = { key, bytes: valueBytes(e.slice(i + 1)) };
      const at = g.kvs.findIndex((k) => k.key === key);
      if (at >= 0) g.kvs[at] = kv; else g.kvs.push(kv);
    }
  }
  const w = new Writer();
  w.bytes(new TextEncoder().encode('GGUF'));
  w.num(g.version, 4); w.num(g.tensors.length, 8); w.num(g.kvs.length, 8);
  for (const kv of g.kvs) { w.str(kv.key); w.bytes(kv.bytes); }
  let offset = 0;
  for (const t of g.tensors) {
    w.str(t.name); w.num(t.ne.length, 4);
    for (const n of t.ne) w.num(n, 8);
    w.num(t.type, 4); w.num(offset, 8);
    const bytes = Object.values(GGML).find(([n]) => n === t.type)?.[1];
    if (!bytes) throw new Error(`tensor ${t.name}: type ${t.type} not f32/f16/bf16`);
    offset += Math.ceil((t.ne.reduce((a, b) => a * b, 1) * bytes) / 32) * 32;
  }
  const pad = (32 - (w.len % 32)) % 32;
  w.bytes(new Uint8Array(pad)); // the data section starts within the file, as in the bases
  return w.done();
}

/** the rows of cases.tsv: {name, base, edits: [], flags: [], status, message, file} */
export function hostileCases() {
  const text = readFileSync(path.join(DIR, 'cases.tsv'), 'utf8');
  const rows = text.split('\n').filter((l) => l.trim() && !l.startsWith('#'));
  const [head, ...body] = rows.map((l) => l.split('\t'));
  return body.map((r) => {
    const o = Object.fromEntries(head.map((h, i) => [h, r[i] ?? '']));
    return { name: o.name, base: o.base, edits: o.edits === '' ? [] : o.edits.split(';'), flags: o.flags === '' ? [] : o.flags.split(' '),
      status: o.status, message: o.message, file: path.join(DIR, `${o.name}.gguf`) };
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let differ = 0;
  for (const c of hostileCases()) {
    const out = applyEdits(readFileSync(path.join(BASES, `${c.base}.meta.gguf`)), c.edits);
    if (check) {
      if (!existsSync(c.file) || Buffer.compare(readFileSync(c.file), out) !== 0) { console.log(`differs: ${c.file}`); differ++; }
    } else {
      writeFileSync(c.file, out);
    }
  }
  process.exit(differ ? 1 : 0);
}
