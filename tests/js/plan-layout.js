// plan-layout.js: a plan document's text from its values, by the format page's layout alone (no
// code of the project's writers): the root's members one per line, the buffers and tensors one
// per line, every other value on its line as `{ "k": v, ... }` / `[a, b]`. Numbers past 2^53 are
// decimal strings in the values already, so JSON.stringify writes every scalar as the format has it.

/** one value on one line */
function inline(v) {
  if (Array.isArray(v)) return `[${v.map(inline).join(', ')}]`;
  if (v !== null && typeof v === 'object') {
    const members = Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${inline(x)}`);
    return members.length ? `{ ${members.join(', ')} }` : '{}';
  }
  return JSON.stringify(v);
}

/**
 * The text of a plan document (the object JSON.parse makes of one, or the binary plan decoded).
 * @param {object} plan
 * @returns {string}
 */
export function planLayout(plan) {
  const member = ([k, v]) => {
    const list = Array.isArray(v) && (k === 'buffers' || k === 'tensors');
    const value = list && v.length ? `[\n${v.map((x) => `    ${inline(x)}`).join(',\n')}\n  ]` : inline(v);
    return `  ${JSON.stringify(k)}: ${value}`;
  };
  return `{\n${Object.entries(plan).map(member).join(',\n')}\n}\n`;
}
