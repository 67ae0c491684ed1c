// reasons.js: why the allocator put a tensor where it is, in words.
//
// Turns a plan entry's `how` (best_fit, last_block, grow, new_chunk,
// inplace, view) and the graph around it into one sentence for the tooltip
// and the inspector: "took over x2's memory in place (x2's last use)". A
// source placed at the step of a node before it in the graph says so.

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
    if (v !== undefined && v !== null && model.byTensor[v]) {
      // ggml_gallocr_alloc_graph gives a view its root's memory where it meets the view after the root
      return `view of ${name(v)}, met only before ${name(v)} gets its memory (${name(v)} comes later in the graph): ggml_gallocr leaves it without memory`;
    }
    if (v !== undefined && v !== null) return `view of ${name(v)}, which lives outside the graph allocator`;
    if (model.index.step[i] < 0 && model.index.leafPos[i] < 0) return 'not in the graph: never placed';
    return 'no memory needed';
  }
  const bt = model.doc.buffer_types[r.buffer]?.name ?? `buffer ${r.buffer}`;
  const rule = ruleReason(model, r, bt, name);
  // a source that comes later in the graph than a node reading it: upstream allocates it there
  const own = model.index.step[i];
  if (!r.view && r.how !== 'inplace' && own >= 0 && r.first >= 0 && r.first < own) {
    const reader = name(model.doc.nodes[r.first]);
    const assigned = model.index.assigned[i];
    const other = assigned >= 0 && assigned !== r.buffer ? `, in ${bt} (that node's buffer type, not its own)` : '';
    return `${rule}; placed at step ${r.first}, before its own step ${own}: ${reader} reads it there first${other}`;
  }
  return rule;
}

// the sentence for the rule that placed r
function ruleReason(model, r, bt, name) {
  const i = r.i;
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
