// devices.js: the devices a model runs on in the page, as `galloc model --device` takes them.
//
// Pure data: the device kinds (the CLI's profiles, c/src/models/galloc-model-place-devices.c), the
// placement flags llama.cpp takes (-ngl, -ts, -sm, -mg, -nkvo, --no-op-offload), the one line of
// flags GallocModel.memory() and the CLI both read, the breakdown grouped per device, and whether
// each device fits (the CLI's rule, c/cli/cli-model-fit.c: used + margin <= memory).

const MIB = 1048576;

/**
 * The kinds `galloc model --help` lists, with each profile's default memory (MiB) and what it is.
 * @type {Array<{kind: string, label: string, defaultMiB: number, verified: boolean}>}
 */
export const DEVICE_KINDS = [
  { kind: 'cuda', label: 'CUDA (NVIDIA)', defaultMiB: 24 * 1024, verified: false },
  { kind: 'rocm', label: 'ROCm (AMD)', defaultMiB: 24 * 1024, verified: false },
  { kind: 'vulkan', label: 'Vulkan GPU', defaultMiB: 16 * 1024, verified: false },
  { kind: 'metal', label: 'Metal (Apple)', defaultMiB: 16 * 1024, verified: false },
  { kind: 'rpc', label: 'RPC (over a CPU server)', defaultMiB: 16 * 1024, verified: true },
  { kind: 'llvmpipe', label: 'Vulkan on llvmpipe', defaultMiB: 2048, verified: true },
];

/** the margin llama.cpp's --fit keeps free on each device (common/fit.cpp; the CLI's --fit-target default) */
export const FIT_MARGIN = 1024 * MIB;

/** the placement flags with no device-specific value: llama.cpp's defaults */
export const START_PLACEMENT = Object.freeze({ ngl: -1, ts: '', sm: 'layer', mg: 0, nkvo: false, opOffload: true });

/**
 * A new device of a kind at its default memory.
 * @param {string} kind
 * @returns {{kind: string, memoryMiB: number}}
 */
export function newDevice(kind) {
  const k = DEVICE_KINDS.find((d) => d.kind === kind) ?? DEVICE_KINDS[0];
  return { kind: k.kind, memoryMiB: k.defaultMiB };
}

/**
 * Parse a memory a person types for a device ("24", "24 GiB", "12000 MiB"; a bare number is GiB).
 * @param {string} text
 * @returns {number} MiB, a positive integer
 * @throws {Error} naming what is wrong
 */
export function parseDeviceMemory(text) {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(gib|gb|g|mib|mb|m)?\s*$/i.exec(String(text));
  if (!m) throw new Error(`'${text}' is not a memory size (24 GiB, 12000 MiB)`);
  const unit = (m[2] ?? 'gib').toLowerCase();
  const mib = unit.startsWith('m') ? Number(m[1]) : Number(m[1]) * 1024;
  if (!Number.isInteger(mib) || mib <= 0 || mib > 1 << 30) throw new Error(`'${text}' is not a whole number of MiB above 0`);
  return mib;
}

/**
 * The -ts proportions as typed ("3,1"), checked: one non-negative number per device, or '' for none.
 * @param {string} ts
 * @param {number} nDevices
 * @returns {string} '' or the list, normalised ("3,1")
 * @throws {Error} naming what is wrong
 */
export function checkTensorSplit(ts, nDevices) {
  const s = String(ts ?? '').trim();
  if (s === '') return '';
  const parts = s.split(/[,/]/).map((p) => p.trim());
  if (parts.some((p) => !/^\d+(\.\d+)?$/.test(p))) throw new Error(`-ts: '${s}' is not a list of numbers like 3,1`);
  if (parts.length > nDevices) throw new Error(`-ts: ${parts.length} proportions for ${nDevices} device${nDevices === 1 ? '' : 's'}`);
  if (parts.every((p) => Number(p) === 0)) throw new Error('-ts: every proportion is 0');
  return parts.join(',');
}

/**
 * The line of flags `galloc model` and GallocModel.memory() take for these settings, devices and
 * placement (devices in llama.cpp's order; none: the CPU alone).
 * @param {{n_ctx: number, n_batch: number, n_ubatch: number, flash_attn: number, type_k: string, type_v: string, n_seq: number}} s
 * @param {Array<{kind: string, memoryMiB: number}>} devices
 * @param {typeof START_PLACEMENT} p
 * @returns {string[]} the arguments, one per element
 */
export function memoryArgs(s, devices, p) {
  const a = ['-c', String(s.n_ctx), '-b', String(s.n_batch), '-ub', String(s.n_ubatch), '-fa', s.flash_attn ? 'on' : 'off'];
  if (s.type_k !== 'f16') a.push('-ctk', s.type_k);
  if (s.type_v !== 'f16') a.push('-ctv', s.type_v);
  if (s.n_seq !== 1) a.push('-np', String(s.n_seq));
  for (const d of devices) a.push('--device', `${d.kind}:${d.memoryMiB}MiB`);
  if (devices.length) {
    if (p.ngl >= 0) a.push('-ngl', String(p.ngl));
    if (p.sm !== 'layer') a.push('-sm', p.sm);
    if (p.sm === 'none' && p.mg) a.push('-mg', String(p.mg));
    if (p.ts) a.push('-ts', p.ts);
    if (p.nkvo) a.push('-nkvo');
    if (!p.opOffload) a.push('--no-op-offload');
  }
  return a;
}

/**
 * Per device (in --device order) and for the host: the buffer types there, and the bytes of
 * weights, KV cache and compute buffers, against its memory; fits when used + margin <= memory
 * (the CLI's --sweep rule); memory not given (0): not checked (fits null).
 * @param {{buffer_types: Array<{name: string, device: number, model: number, context: number, compute: number}>}} memory
 * @param {Array<{kind: string, memoryMiB: number}>} devices
 * @param {number} hostMiB the host's memory (0: not checked)
 * @param {number} [margin]
 * @returns {Array<{device: number, label: string, names: string[], model: number, context: number, compute: number,
 *   used: number, capacity: number, spare: number|null, fits: boolean|null}>}
 */
export function deviceRows(memory, devices, hostMiB, margin = FIT_MARGIN) {
  const rows = [];
  const row = (device, label, capacity) => {
    const bts = memory.buffer_types.filter((b) => (device < 0 ? b.device < 0 : b.device === device));
    const sum = (k) => bts.reduce((n, b) => n + Number(b[k] ?? 0), 0);
    const used = sum('model') + sum('context') + sum('compute');
    const spare = capacity > 0 ? capacity - margin - used : null;
    rows.push({ device, label, names: bts.map((b) => b.name), model: sum('model'), context: sum('context'),
      compute: sum('compute'), used, capacity, spare, fits: spare === null ? null : spare >= 0 });
  };
  devices.forEach((d, i) => row(i, `${i}: ${d.kind}`, d.memoryMiB * MIB));
  row(-1, 'host', hostMiB * MIB);
  return rows;
}

/**
 * The settings, devices and placement a line of flags stands for: memoryArgs' inverse (a link
 * carries the line the CLI takes). Flags it does not write are refused, naming them.
 * @param {string[]} args
 * @param {object} base the settings the line's missing flags keep (START_SETTINGS)
 * @returns {{settings: object, devices: Array<{kind: string, memoryMiB: number}>, placement: typeof START_PLACEMENT}}
 * @throws {Error} naming the flag
 */
export function parseMemoryArgs(args, base) {
  const settings = { ...base };
  const devices = [];
  const placement = { ...START_PLACEMENT };
  const int = (flag, v, min) => {
    if (!/^\d+$/.test(v ?? '') || Number(v) < min || Number(v) > 1 << 24) throw new Error(`${flag}: '${v ?? ''}' is not a whole number`);
    return Number(v);
  };
  for (let i = 0; i < args.length; i++) {
    const f = args[i];
    const v = args[i + 1];
    const take = () => { i++; return v; };
    switch (f) {
      case '-c': settings.n_ctx = int(f, take(), 0); break;
      case '-b': settings.n_batch = int(f, take(), 1); break;
      case '-ub': settings.n_ubatch = int(f, take(), 1); break;
      case '-np': settings.n_seq = int(f, take(), 1); break;
      case '-fa': if (v !== 'on' && v !== 'off') throw new Error(`-fa: '${v ?? ''}' is not on or off`); settings.flash_attn = take() === 'on' ? 1 : 0; break;
      case '-ctk': case '-ctv': if (!/^[a-z0-9_]+$/.test(v ?? '')) throw new Error(`${f}: '${v ?? ''}' is not a cache type`); settings[f === '-ctk' ? 'type_k' : 'type_v'] = take(); break;
      case '--device': {
        const m = /^([a-z]+):(\d+)MiB$/.exec(take() ?? '');
        if (!m || !DEVICE_KINDS.some((k) => k.kind === m[1]) || Number(m[2]) <= 0) throw new Error(`--device: '${v ?? ''}' is not KIND:NMiB`);
        devices.push({ kind: m[1], memoryMiB: Number(m[2]) });
        break;
      }
      case '-ngl': placement.ngl = int(f, take(), 0); break;
      case '-sm': if (v !== 'layer' && v !== 'none') throw new Error(`-sm: '${v ?? ''}' is not layer or none`); placement.sm = take(); break;
      case '-mg': placement.mg = int(f, take(), 0); break;
      case '-ts': placement.ts = take() ?? ''; break;
      case '-nkvo': placement.nkvo = true; break;
      case '--no-op-offload': placement.opOffload = false; break;
      default: throw new Error(`'${f}' is not a flag this page sets`);
    }
  }
  if (placement.ts) placement.ts = checkTensorSplit(placement.ts, devices.length);
  if (placement.mg >= Math.max(1, devices.length)) throw new Error(`-mg: ${placement.mg} is not a device`);
  return { settings, devices, placement };
}
