// whatif-csv.js: what the UI needs around MiniMalloc CSV problems, before the module sees them:
// the capacity a file name carries (A.1048576.csv), and a capacity a person types.

import { parseSize } from './format.js';

/** the largest CSV text the UI reads, bytes */
export const CSV_MAX_BYTES = 64 << 20;

/**
 * The capacity in a MiniMalloc file name, NAME.<digits>.csv (as `galloc compare` reads it):
 * "A.1048576.csv" -> 1048576n; null when the name carries none (or 0).
 * @param {string} fileName a file name or path
 * @returns {bigint|null}
 */
export function capacityFromFileName(fileName) {
  const base = String(fileName).split(/[\\/]/).pop();
  const m = /\.(\d{1,18})\.csv$/.exec(base);
  if (!m) return null;
  const v = BigInt(m[1]);
  return v > 0n ? v : null;
}

/**
 * A capacity typed by a person: "1048576", "1 MiB", "" or "none" (null: none).
 * Throws Error with a readable message on anything else.
 * @param {string} text
 * @returns {bigint|null}
 */
export function parseCapacity(text) {
  const v = parseSize(text);
  if (v === 0n) return null;
  return v;
}

/**
 * The capacity a CSV import uses: the typed one, else the file name's, and where it came from.
 * @param {string} typed what the capacity field holds ('' when empty)
 * @param {string} fileName
 * @returns {{capacity: bigint|null, from: 'input'|'file name'|null}}
 */
export function csvCapacity(typed, fileName) {
  const c = parseCapacity(typed);
  if (c !== null) return { capacity: c, from: 'input' };
  const f = capacityFromFileName(fileName);
  return f !== null ? { capacity: f, from: 'file name' } : { capacity: null, from: null };
}
