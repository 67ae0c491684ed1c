// planning-key.js: what the graph text tests compare a round trip by: the fields of a graph
// document that matter for planning, in one canonical shape (ne trimmed, nb and ids made
// explicit, flags sorted), so two documents that plan alike compare equal whatever their
// spelling. A test helper only: the UI never compares documents so.

import { normalizeGraph, tensorInfo } from '../../web/src/core/graph-model.js';
import { trimNe } from '../../web/src/core/ggml-types.js';

/** src without trailing holes, holes as null */
function trimHoles(src) {
  const s = src.slice();
  while (s.length && (s[s.length - 1] === null || s[s.length - 1] === undefined)) s.pop();
  return s.map((v) => v ?? null);
}

/**
 * @param {object} doc a graph document with nodes and leafs
 * @returns {object}
 */
export function planningKey(doc) {
  const d = normalizeGraph(doc);
  const info = tensorInfo(d);
  return {
    buffer_types: d.buffer_types.map((b) => [b.alignment, b.max_size === null ? null : String(b.max_size)]),
    tensors: d.tensors.map((t, i) => ({
      name: t.name, op: t.op, type: t.type,
      ne: trimNe(info.ne[i]).map(String), nb: info.nb[i].map(String),
      src: trimHoles(t.src || []),
      view_src: t.view_src ?? null, view_offs: t.view_src === undefined || t.view_src === null ? null : String(t.view_offs ?? 0),
      flags: [...new Set(t.flags || [])].filter((f) => f !== 'compute').sort(),
      alloc_size: t.alloc_size === undefined ? null : String(t.alloc_size),
      buffer_type: t.buffer_type ?? null,
    })),
    nodes: d.nodes, leafs: d.leafs, node_buffer_ids: d.node_buffer_ids, leaf_buffer_ids: d.leaf_buffer_ids,
  };
}
