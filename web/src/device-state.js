// device-state.js: the devices the open model runs on (kind and memory each, llama.cpp's order),
// the host's memory, llama.cpp's placement flags, and what they give: llama.cpp's memory
// breakdown per buffer type (GallocModel.memory, the CLI's `galloc model ... --json`) and a
// sweep of it over -ngl or -c in the sweep worker. Follows model-state.js's model and settings.

import { signal, effect, batch } from '@preact/signals';
import { modelSource, settings, currentModel, currentSource } from './model-state.js';
import { START_PLACEMENT, memoryArgs, newDevice, checkTensorSplit } from './core/devices.js';
import { createSweepRunner } from './core/sweep-client.js';

/** [{kind, memoryMiB}] in llama.cpp's order; none: the CPU alone */
export const devices = signal([]);
/** the host's memory in MiB (0: not checked) */
export const hostMiB = signal(0);
/** llama.cpp's placement flags (devices.js START_PLACEMENT shape) */
export const placement = signal(START_PLACEMENT);
/**
 * the breakdown on screen: {args: string[] (the flags it was computed for), memory (galloc-memory)},
 * or null; the args are always those of the settings shown (an error clears it)
 */
export const breakdown = signal(null);
/** why there is no breakdown for the settings shown ('' when there is one) */
export const breakdownError = signal('');
/** the device sweep: {status: 'idle'|'running'|'done'|'failed', axis: 'ngl'|'c', done, total, points: [{x, args, memory|null, error}], error} */
export const deviceSweep = signal({ status: 'idle', axis: 'ngl', done: 0, total: 0, points: [] });

const runner = createSweepRunner();

/** the flags of the settings, devices and placement shown */
export function currentArgs() {
  return memoryArgs(settings.value, devices.value, placement.value);
}

function recompute() {
  const m = currentModel();
  const args = currentArgs();
  if (!m || modelSource.value?.unsupported) {
    batch(() => { breakdown.value = null; breakdownError.value = ''; });
    return;
  }
  try {
    const memory = m.memory(args.join(' '));
    batch(() => { breakdown.value = { args, memory }; breakdownError.value = ''; });
  } catch (e) {
    batch(() => { breakdown.value = null; breakdownError.value = e.message; });
  }
}

// every change of model, settings, devices or placement: the breakdown of what is shown, and a
// sweep of other settings is no longer the answer
effect(() => {
  void modelSource.value; void settings.value; void devices.value; void placement.value;
  recompute();
  runner.cancel();
  deviceSweep.value = { status: 'idle', axis: deviceSweep.peek().axis, done: 0, total: 0, points: [] };
});

export function addDevice(kind) { devices.value = [...devices.value, newDevice(kind)]; }
export function removeDevice(i) {
  devices.value = devices.value.filter((_, j) => j !== i);
  const p = placement.value;
  if (p.ts && p.ts.split(',').length > devices.value.length) placement.value = { ...p, ts: '' };
  if (p.mg >= devices.value.length) placement.value = { ...placement.value, mg: 0 };
}
export function setDevice(i, change) { devices.value = devices.value.map((d, j) => (j === i ? { ...d, ...change } : d)); }
export function setHostMiB(mib) { hostMiB.value = mib; }

/**
 * Change one placement flag. -ts is checked against the devices (throws naming the flag).
 * @param {keyof typeof START_PLACEMENT} key
 * @param {any} value
 */
export function setPlacement(key, value) {
  const v = key === 'ts' ? checkTensorSplit(value, devices.value.length) : value;
  placement.value = { ...placement.value, [key]: v };
}

/** every placement flag at once (a link's) */
export function setPlacementAll(p) { placement.value = { ...START_PLACEMENT, ...p }; }

/** the devices of a two-GPU setup (what the page offers as a start: CUDA 24 GiB and 12 GiB) */
export function setDevices(list) { batch(() => { devices.value = list.map((d) => ({ ...d })); placement.value = { ...START_PLACEMENT }; }); }

/**
 * The breakdown at every -ngl (0 to all layers and the output) or at -c 1024, 2048, ... up to
 * the training context (as `galloc model --sweep ngl|c`), in the sweep worker.
 * @param {'ngl'|'c'} axis
 * @param {number} nLayer the model's layers (-ngl runs 0 .. nLayer + 1)
 * @param {number} nCtxTrain the training context
 */
export async function runDeviceSweep(axis, nLayer, nCtxTrain) {
  const source = currentSource();
  if (!source) return;
  const base = currentArgs();
  const xs = [];
  if (axis === 'ngl') for (let n = 0; n <= nLayer + 1; n++) xs.push(n);
  else for (let c = 1024; ; c *= 2) { xs.push(Math.min(c, nCtxTrain)); if (c >= nCtxTrain) break; }
  const set = (args, flag, v) => {
    const a = [...args];
    const i = a.indexOf(flag);
    if (i >= 0) a[i + 1] = String(v); else a.push(flag, String(v));
    return a;
  };
  const pointArgs = xs.map((x) => (axis === 'ngl' ? set(base, '-ngl', x) : set(base, '-c', x)));
  deviceSweep.value = { status: 'running', axis, done: 0, total: xs.length, points: [] };
  try {
    const results = await runner.run(source, pointArgs.map((a) => ({ memory: a.join(' ') })), (done, total) => {
      deviceSweep.value = { ...deviceSweep.value, done, total };
    });
    deviceSweep.value = { status: 'done', axis, done: xs.length, total: xs.length,
      points: xs.map((x, i) => ({ x, args: pointArgs[i], memory: results[i].error ? null : results[i], error: results[i].error ?? '' })) };
  } catch (e) {
    if (e.code === 'cancelled') return;
    deviceSweep.value = { status: 'failed', axis, done: 0, total: 0, points: [], error: e.message };
  }
}

export function cancelDeviceSweep() {
  runner.cancel();
  deviceSweep.value = { status: 'idle', axis: deviceSweep.value.axis, done: 0, total: 0, points: [] };
}
