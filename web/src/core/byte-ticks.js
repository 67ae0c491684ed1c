// byte-ticks.js: axis ticks for byte offsets at round binary values (0, 4 KiB, 8 KiB,
// 128 MiB, 1 GiB ...) and their labels, written exactly (1.5 MiB, never 1.46 MiB).
//
// A linear axis steps by a power of two (never below one byte); any other scale
// (log, piecewise) keeps the roundest values that are far enough apart on screen.

const UNIT_NAMES = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];

/**
 * Ticks of a linear byte axis over [lo, hi]: multiples of the smallest power of two
 * step that gives at most `count` intervals.
 * @param {number} lo bytes
 * @param {number} hi bytes
 * @param {number} count wanted number of intervals (at least 1)
 * @returns {{step: number, ticks: number[]}}
 */
export function binaryTicks(lo, hi, count) {
  const a = Math.max(0, Math.min(lo, hi));
  const b = Math.max(lo, hi);
  const n = Math.max(1, Math.floor(count));
  let step = 1;
  while ((b - a) / step > n && step < 2 ** 62) step *= 2;
  const ticks = [];
  for (let v = Math.ceil(a / step) * step; v <= b; v += step) ticks.push(v);
  return { step, ticks };
}

/** at most 6 significant bits (k * 2^e, k < 64): 1088 MiB is, 1112 MiB is not */
function fewBits(v) {
  let x = v;
  while (x >= 64 && x % 2 === 0) x /= 2;
  return x < 64;
}

/**
 * Ticks for any monotone byte scale (log, piecewise): round binary values (at most six
 * significant bits), the roundest first (multiples of the largest powers of two), each kept only when it is at least
 * `minGap` px from every tick kept before it.
 * @param {number} lo bytes
 * @param {number} hi bytes
 * @param {(bytes: number) => number} pxOf screen position of a byte offset
 * @param {number} minGap px
 * @returns {number[]} ascending
 */
export function spacedBinaryTicks(lo, hi, pxOf, minGap) {
  const a = Math.max(0, Math.min(lo, hi));
  const b = Math.max(lo, hi);
  const kept = [];
  const far = (y) => kept.every((k) => Math.abs(k.y - y) >= minGap);
  let step = 1;
  while (step * 2 <= b && step < 2 ** 62) step *= 2;
  for (; step >= 1; step /= 2) {
    const first = Math.ceil(a / step) * step;
    if ((b - first) / step > 512) break;
    for (let v = first; v <= b; v += step) {
      if (!fewBits(v)) continue;
      const y = pxOf(v);
      if (far(y)) kept.push({ v, y });
    }
  }
  return kept.map((k) => k.v).sort((x, y) => x - y);
}

/**
 * A byte count written exactly in the largest binary unit that needs at most three
 * decimals: 4096 -> "4 KiB", 1572864 -> "1.5 MiB", 805306368 -> "768 MiB", 1000 -> "1000 B".
 * @param {number} bytes a whole number of bytes
 * @returns {string}
 */
export function formatTickBytes(bytes) {
  const v = Math.round(bytes);
  if (v === 0) return '0';
  for (let u = UNIT_NAMES.length - 1; u > 0; u--) {
    const unit = 2 ** (10 * u);
    if (Math.abs(v) < unit) continue;
    const x = v / unit;
    if (Math.abs(x * 1000 - Math.round(x * 1000)) < 1e-6) return `${Number(x.toFixed(3))} ${UNIT_NAMES[u]}`;
  }
  return `${v} B`;
}
