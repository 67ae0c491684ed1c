// format.js: numbers for people: byte sizes with binary units, percentages,
// shapes. parseSize reads what a person types ("1.5 GiB", "4096", "none").

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
const UNIT_BYTES = { b: 1n, kib: 1n << 10n, mib: 1n << 20n, gib: 1n << 30n, tib: 1n << 40n, pib: 1n << 50n, eib: 1n << 60n,
  k: 1n << 10n, m: 1n << 20n, g: 1n << 30n, t: 1n << 40n, kb: 1000n, mb: 1000000n, gb: 1000000000n, tb: 1000000000000n };

/** SIZE_MAX on a 64-bit machine */
export const SIZE_MAX = (1n << 64n) - 1n;

/**
 * A byte count in binary units, three significant digits: 21696 -> "21.2 KiB".
 * @param {number|string|bigint|null|undefined} bytes
 * @returns {string}
 */
export function formatBytes(bytes) {
  if (bytes === null || bytes === undefined) return '—';
  const b = typeof bytes === 'bigint' ? bytes : BigInt(typeof bytes === 'number' ? Math.round(bytes) : bytes);
  if (b === SIZE_MAX) return 'SIZE_MAX';
  if (b < 1024n && b > -1024n) return `${b} B`;
  let v = Number(b);
  let u = 0;
  while (Math.abs(v) >= 1024 && u < UNITS.length - 1) { v /= 1024; u++; }
  const digits = Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2;
  return `${v.toFixed(digits)} ${UNITS[u]}`;
}

/**
 * MiB as llama.cpp prints them (its "%.2f MiB" of bytes / 1024 / 1024): 322971648 -> "308.01 MiB".
 * Used where llama.cpp prints that number (compute buffer lines, the KV cache); binary units
 * (formatBytes) everywhere else.
 * @param {number|string|bigint} bytes
 * @returns {string}
 */
export function formatMiB(bytes) {
  return `${(Number(bytes) / 1048576).toFixed(2)} MiB`;
}

/**
 * A byte count for a place with no hover of its own (a tooltip): binary units, then the exact
 * bytes when the units round them: 4194304 -> "4.00 MiB (4,194,304 B)", 16 -> "16 B".
 * @param {number|string|bigint} bytes
 * @returns {string}
 */
export function formatBytesBoth(bytes) {
  const short = formatBytes(bytes);
  return / B$/.test(short) ? short : `${short} (${formatBytesExact(bytes)})`;
}

/**
 * Exact byte count with thousands separators: 21696 -> "21,696 B".
 * @param {number|string|bigint} bytes
 * @returns {string}
 */
export function formatBytesExact(bytes) {
  const s = BigInt(bytes).toString();
  return `${s.replace(/\B(?=(\d{3})+(?!\d))/g, ',')} B`;
}

/**
 * The shortest exact spelling of a size: 1073741824 -> "1GiB", 100 -> "100".
 * @param {number|string|bigint} bytes
 * @returns {string}
 */
export function sizeLiteral(bytes) {
  const b = BigInt(bytes);
  if (b === 0n) return '0';
  for (const [unit, mul] of [['GiB', 1n << 30n], ['MiB', 1n << 20n], ['KiB', 1n << 10n]]) {
    if (b % mul === 0n && b / mul < 1000000n) return `${b / mul}${unit}`;
  }
  return b.toString();
}

/**
 * Parse a size typed by a person: "4096", "16 KiB", "1.5GiB", "none"/"" -> null.
 * Throws Error with a readable message on nonsense or a fraction of a byte.
 * @param {string} text
 * @returns {bigint|null}
 */
export function parseSize(text) {
  const s = String(text).trim();
  if (s === '' || /^(none|null|unlimited|∞)$/i.test(s)) return null;
  const m = /^(\d+(?:\.\d+)?|\.\d+)\s*([A-Za-z]*)$/.exec(s);
  if (!m) throw new Error(`"${s}" is not a size (try 4096, 16 KiB, 1.5 GiB or none)`);
  const unit = m[2].toLowerCase() || 'b';
  const mul = UNIT_BYTES[unit];
  if (mul === undefined) throw new Error(`unknown unit "${m[2]}" (use B, KiB, MiB, GiB or TiB)`);
  const [whole, frac = ''] = m[1].split('.');
  const scale = 10n ** BigInt(frac.length);
  const num = BigInt(whole || '0') * scale + BigInt(frac || '0');
  if ((num * mul) % scale !== 0n) throw new Error(`"${s}" is not a whole number of bytes`);
  const v = (num * mul) / scale;
  if (v > SIZE_MAX) throw new Error(`"${s}" is larger than SIZE_MAX`);
  return v;
}

/**
 * Percent with one decimal: (2080, 19616) -> "10.6%".
 * @param {number} part
 * @param {number} whole
 * @returns {string}
 */
export function formatPercent(part, whole) {
  if (!whole) return '—';
  return `${((100 * part) / whole).toFixed(1)}%`;
}

/**
 * A shape as ggml developers write it: [64, 8] (trailing 1s trimmed).
 * @param {Array<number|string|bigint>} ne
 * @returns {string}
 */
export function formatShape(ne) {
  const a = (ne || [1]).map(String);
  while (a.length > 1 && a[a.length - 1] === '1') a.pop();
  return `[${a.join(', ')}]`;
}
