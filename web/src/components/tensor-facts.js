// tensor-facts.js: the lines the tooltip and the inspector show for a tensor.
import { formatBytes, formatBytesBoth, formatShape } from '../core/format.js';
import { placementReason } from '../core/reasons.js';
import { leafKind, isExternal, opDesc } from '../core/op-rules.js';

/**
 * @param {object} m model
 * @param {number} i tensor index
 * @returns {{name: string, op: string, type: string, shape: string, bytes: string, where: string, steps: string, why: string}}
 */
export function tensorFacts(m, i) {
  const t = m.doc.tensors[i];
  const r = m.byTensor[i];
  const bytes = m.info.bytes[i];
  let where = '';
  let steps = '';
  if (r) {
    const bt = m.doc.buffer_types[r.buffer]?.name ?? r.buffer;
    // binary units, the exact bytes beside them (a tooltip has no hover of its own)
    where = `${bt} · chunk ${r.chunk} · offset ${formatBytesBoth(r.offset)} · up to ${formatBytesBoth(r.offset + r.size)}${r.padded !== r.size ? ` · padded to ${formatBytesBoth(r.padded)}` : ''}`;
    const from = r.first < 0 ? 'before the first node' : `step ${r.first}`;
    steps = `memory from ${from} to step ${r.last}`;
    if (r.heir >= 0) steps += `, then handed to ${m.doc.tensors[r.heir].name} in place`;
  }
  const kind = leafKind(t);
  const leafName = kind === 'weight' ? 'weight (allocated outside the graph)'
    : isExternal(t) ? `${kind} (allocated outside the graph)` : kind;
  const opName = t.op === 'NONE' ? leafName
    : opDesc(t) === t.op ? t.op : `${t.op} (${opDesc(t)})`;
  return {
    name: t.name || `#${i}`, op: opName, type: t.type, shape: formatShape(t.ne), bytes: formatBytesBoth(bytes),
    where, steps, why: placementReason(m, i),
  };
}
