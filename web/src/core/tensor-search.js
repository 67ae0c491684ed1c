// tensor-search.js: find tensors by name as a person types it.
//
// Case-insensitive; the whole name first, then names that start with the query,
// then names that contain it (each group in graph order). Pure: names in, indices out.

/**
 * @param {string[]} names tensor names, by tensor index
 * @param {string} query
 * @param {number} [limit] most indices returned
 * @returns {{matches: number[], total: number}} the best `limit` matches and how many there are
 */
export function findTensors(names, query, limit = 12) {
  const q = query.trim().toLowerCase();
  if (!q) return { matches: [], total: 0 };
  const exact = [];
  const prefix = [];
  const inner = [];
  for (let i = 0; i < names.length; i++) {
    const n = String(names[i] ?? '').toLowerCase();
    if (n === q) exact.push(i);
    else if (n.startsWith(q)) prefix.push(i);
    else if (n.includes(q)) inner.push(i);
  }
  const all = exact.concat(prefix, inner);
  return { matches: all.slice(0, limit), total: all.length };
}
