// reasons.js: why the allocator put a tensor where it is, in words.
//
// Turns a plan entry's `how` (best_fit, last_block, grow, new_chunk,
// inplace, view) and the graph around it into one sentence for the tooltip
// and the inspector: "took over x2's memory in place (x2's last use)".

import { formatBytes } from './format.js';

/**
 * @param {object} model from buildModel
 * @param {number} i tensor index
 * @returns {string}
 */
export function placementReason(model, i) {
  const t = model.doc.tensors[i];
  const r = model.byTensor[i];
  const name = (j) => model.doc.tensors[j]?.name || `#${j}`;
  if (!r) {
    if (t.buffer_type !== undefined && t.buffer_type !== null) {
      return `allocated outside the graph allocator, in ${model.doc.buffer_types[t.buffer_type]?.name ?? `buffer type ${t.buffer_type}`} (weights, KV cache)`;
    }
    const v = t.view_src;
    if (v !== undefined && v !== null) return `view of ${name(v)}, which lives outside the graph allocator`;
    if (model.index.step[i] < 0 && model.index.leafPos[i] < 0) return 'not in the graph: never placed';
    return 'no memory needed';
  }
  const bt = model.doc.buffer_types[r.buffer]?.name ?? `buffer ${r.buffer}`;
  switch (r.how) {
    case 'best_fit': return `best fit in a free block of chunk ${r.chunk}`;
    case 'last_block': return `end of chunk ${r.chunk}, inside the size it already needs`;
    case 'grow': return `end of chunk ${r.chunk}, growing it to ${formatBytes(r.offset + r.padded)}`;
    case 'new_chunk': return r.chunk === 0
      ? `first tensor of ${bt}: chunk 0 starts here`
      : `new chunk ${r.chunk}: nothing else fit${model.buffers[r.buffer]?.maxSize ? ` under the ${formatBytes(model.buffers[r.buffer].maxSize)} max size` : ''}`;
    case 'inplace': {
      const p = name(r.parent);
      const pb = model.byTensor[r.parent];
      const other = pb && pb.buffer !== (model.index.assigned[i] ?? r.buffer) ? ` (so it uses ${bt}, not its own buffer type)` : '';
      return `took over ${p}'s memory in place (${p}'s last use)${other}`;
    }
    case 'view': {
      const offs = model.info.offs[i];
      return `view of ${name(r.parent)} at +${offs} bytes: no memory of its own`;
    }
    default: return r.view ? `view of ${name(r.parent)}` : `placed in chunk ${r.chunk} at offset ${r.offset}`;
  }
}
