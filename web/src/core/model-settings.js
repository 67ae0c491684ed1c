// model-settings.js: llama.cpp's context settings as the model page shows and edits them.
//
// Pure data: the controls (flag, label, choices), a settings object checked against them, the
// contexts a sweep runs over, and the line llama.cpp logs for a compute buffer.
import { formatMiB } from './format.js';

/** cache types llama.cpp accepts for -ctk / -ctv */
export const CACHE_TYPES = ['f16', 'bf16', 'f32', 'q8_0', 'q4_0', 'q4_1', 'iq4_nl', 'q5_0', 'q5_1'];

/** context lengths offered in the -c menu and swept over (powers of two, 512 .. 128K) */
export const CONTEXTS = [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072];
/** micro-batches offered in the -ub menu and swept over */
export const UBATCHES = [32, 64, 128, 256, 512, 1024, 2048];

/** the page's starting settings: llama.cpp's defaults except an explicit 4096-token context */
export const START_SETTINGS = Object.freeze({
  n_ctx: 4096, n_batch: 2048, n_ubatch: 512, flash_attn: 1, type_k: 'f16', type_v: 'f16', n_seq: 1, graph: 'prompt',
});

/**
 * Settings with one change, coerced to the types the module takes.
 * @param {typeof START_SETTINGS} settings
 * @param {string} key
 * @param {string|number} value
 * @returns {typeof START_SETTINGS}
 */
export function withSetting(settings, key, value) {
  const next = { ...settings };
  if (key === 'type_k' || key === 'type_v' || key === 'graph') next[key] = String(value);
  else next[key] = Number(value);
  if (key === 'n_ubatch' && next.n_batch < next.n_ubatch) next.n_batch = next.n_ubatch; // llama.cpp: -b >= -ub
  return next;
}

/**
 * The llama.cpp command line these settings stand for (what to type to check them).
 * @param {typeof START_SETTINGS} s
 * @returns {string}
 */
export function commandLine(s) {
  const parts = [`-c ${s.n_ctx}`, `-b ${s.n_batch}`, `-ub ${s.n_ubatch}`, `-fa ${s.flash_attn ? 'on' : 'off'}`];
  if (s.type_k !== 'f16') parts.push(`-ctk ${s.type_k}`);
  if (s.type_v !== 'f16') parts.push(`-ctv ${s.type_v}`);
  if (s.n_seq !== 1) parts.push(`-np ${s.n_seq}`);
  if (s.graph === 'decode') parts.push('--graph decode');
  return parts.join(' ');
}

/**
 * One compute buffer as llama.cpp logs it: "CPU compute buffer size = 572.01 MiB".
 * @param {{name: string, compute: number}} b
 * @returns {string}
 */
export function computeLogLine(b) {
  return `${b.name} compute buffer size = ${formatMiB(b.compute)}`;
}

/** what a sweep can run along: its x axis, the settings key it changes, the values */
export const SWEEP_AXES = {
  n_ctx: { label: 'context length -c (tokens)', values: CONTEXTS },
  n_ubatch: { label: 'micro-batch -ub (tokens)', values: UBATCHES },
};

/**
 * The points of a sweep, flash attention off and on. Along the context (axis 'n_ctx', the
 * default): every context of CONTEXTS up to maxCtx (all when 0), at each micro-batch of ubatches.
 * Along the micro-batch (axis 'n_ubatch'): every micro-batch of UBATCHES at the settings' context
 * (-b raised to -ub where smaller, as llama.cpp requires).
 * @param {typeof START_SETTINGS} base
 * @param {{axis?: 'n_ctx'|'n_ubatch', maxCtx?: number, ubatches?: number[]}} [options]
 * @returns {Array<typeof START_SETTINGS>}
 */
export function sweepPoints(base, { axis = 'n_ctx', maxCtx = 0, ubatches = [base.n_ubatch] } = {}) {
  const points = [];
  for (const fa of [0, 1]) {
    if (axis === 'n_ubatch') {
      for (const ub of UBATCHES) points.push({ ...base, n_ubatch: ub, n_batch: Math.max(base.n_batch, ub), flash_attn: fa });
      continue;
    }
    for (const ub of ubatches) {
      for (const c of CONTEXTS) {
        if (maxCtx && c > maxCtx) continue;
        points.push({ ...base, n_ctx: c, n_ubatch: ub, n_batch: Math.max(base.n_batch, ub), flash_attn: fa });
      }
    }
  }
  return points;
}

/**
 * The same model at other settings, to compare with the settings on screen: flash attention the
 * other way, twice and half the context, twice and half the micro-batch, a q8_0 KV cache, the
 * other graph. Each is one change, as llama.cpp's flags would make it.
 * @param {typeof START_SETTINGS} s
 * @returns {Array<{label: string, settings: typeof START_SETTINGS}>} label: the flag changed
 */
export function settingVariants(s) {
  const out = [];
  const add = (label, key, value) => out.push({ label, settings: withSetting(s, key, value) });
  add(`-fa ${s.flash_attn ? 'off' : 'on'}`, 'flash_attn', s.flash_attn ? 0 : 1);
  if (s.n_ctx > 0) add(`-c ${s.n_ctx * 2}`, 'n_ctx', s.n_ctx * 2);
  if (s.n_ctx >= 512) add(`-c ${s.n_ctx / 2}`, 'n_ctx', Math.floor(s.n_ctx / 2));
  add(`-ub ${s.n_ubatch * 2}`, 'n_ubatch', s.n_ubatch * 2);
  if (s.n_ubatch >= 2) add(`-ub ${Math.floor(s.n_ubatch / 2)}`, 'n_ubatch', Math.floor(s.n_ubatch / 2));
  if (s.type_k !== 'q8_0' || s.type_v !== 'q8_0') out.push({ label: '-ctk q8_0 -ctv q8_0', settings: { ...s, type_k: 'q8_0', type_v: 'q8_0' } });
  add(s.graph === 'decode' ? 'the prompt graph' : 'the decode graph (one token)', 'graph', s.graph === 'decode' ? 'prompt' : 'decode');
  return out;
}
