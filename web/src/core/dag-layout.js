// dag-layout.js: which tensors the graph view shows, and where.
//
// Small graphs are shown whole; past a limit the view shows the
// neighbourhood of the selected tensor (its sources and consumers, a few
// hops out), since no one reads 12,000 boxes. Layout is d3-dag's Sugiyama
// (layers by longest path, two-layer crossing reduction, greedy coordinates).

import { graphStratify, sugiyama, layeringLongestPath, decrossTwoLayer, coordGreedy } from 'd3-dag';

/**
 * The tensors to show: all when there are at most `max`, else the ones
 * within `hops` of `center` (sources and consumers), at most `max`.
 * @param {object} doc normalized graph document
 * @param {number[][]} consumers from graphIndex
 * @param {{center: number|null, max?: number, hops?: number}} opts
 * @returns {{ids: number[], mode: 'full'|'focus'}}
 */
export function dagSubset(doc, consumers, { center, max = 160, hops = 2 }) {
  const n = doc.tensors.length;
  if (n <= max) return { ids: [...Array(n).keys()], mode: 'full' };
  let c = center;
  if (c === null || c === undefined || c < 0 || c >= n) c = doc.nodes.length ? doc.nodes[0] : 0;
  const keep = new Set([c]);
  let frontier = [c];
  for (let h = 0; h < hops && keep.size < max; h++) {
    const next = [];
    for (const t of frontier) {
      const near = [...(doc.tensors[t].src || []).filter((s) => s !== null && s !== undefined), ...consumers[t]];
      const v = doc.tensors[t].view_src;
      if (v !== undefined && v !== null) near.push(v);
      for (const s of near) {
        if (!keep.has(s) && keep.size < max) { keep.add(s); next.push(s); }
      }
    }
    frontier = next;
  }
  return { ids: [...keep].sort((a, b) => a - b), mode: 'focus' };
}

/**
 * Lay out the chosen tensors, sources above consumers.
 * @param {object} doc
 * @param {number[]} ids
 * @param {{nodeWidth?: number, nodeHeight?: number}} [opts]
 * @returns {{nodes: Array<{i: number, x: number, y: number}>, links: Array<{from: number, to: number, slot: number, points: number[][]}>, width: number, height: number}}
 */
export function layoutDag(doc, ids, { nodeWidth = 150, nodeHeight = 40 } = {}) {
  if (!ids.length) return { nodes: [], links: [], width: 0, height: 0 };
  const inSet = new Set(ids);
  const data = ids.map((i) => {
    // a tensor that is its own source (ggml_cast: a CPY whose src[1] is the result) has no edge to itself
    const src = (doc.tensors[i].src || []).filter((s) => s !== null && s !== undefined && s !== i && inSet.has(s));
    return { id: String(i), parentIds: [...new Set(src)].map(String) };
  });
  const graph = graphStratify()(data);
  const layout = sugiyama()
    .layering(layeringLongestPath())
    .decross(decrossTwoLayer())
    .coord(coordGreedy())
    .nodeSize([nodeWidth + 16, nodeHeight + 28])
    .gap([8, 8]);
  const { width, height } = layout(graph);
  const nodes = [];
  for (const node of graph.nodes()) nodes.push({ i: Number(node.data.id), x: node.x, y: node.y });
  const links = [];
  for (const link of graph.links()) {
    const from = Number(link.source.data.id);
    const to = Number(link.target.data.id);
    const slot = (doc.tensors[to].src || []).indexOf(from);
    links.push({ from, to, slot, points: link.points.map(([x, y]) => [x, y]) });
  }
  return { nodes, links, width, height };
}

/**
 * Where the graph view looks (a d3-zoom transform: screen = k * graph + (x, y)) so that no
 * node box is cut by the view's edges. When the whole graph fits at `minScale` or more it is
 * shown whole. Otherwise, at a scale in [minScale, maxScale] (`scale` when given), the view is
 * placed near `focus` (graph coordinates: the point to centre; its y is the view's top when
 * `top`) with each edge in a gap between boxes; when no such place exists, it is centred on focus.
 * @param {Array<{x: number, y: number}>} nodes box centres
 * @param {{nodeWidth: number, nodeHeight: number, width: number, height: number,
 *   viewWidth: number, viewHeight: number, minScale: number, maxScale?: number, scale?: number,
 *   focus: {x: number, y: number}, top?: boolean, pad?: number}} o
 * @returns {{k: number, x: number, y: number, whole: boolean, cuts: boolean}}
 */
export function frameView(nodes, o) {
  const pad = o.pad ?? 10;
  const hw = o.nodeWidth / 2;
  const hh = o.nodeHeight / 2;
  const fit = Math.min(1, o.viewWidth / (o.width + 2 * pad), o.viewHeight / (o.height + 2 * pad));
  if (o.scale === undefined && fit >= o.minScale) {
    return { k: fit, x: Math.max(pad, (o.viewWidth - o.width * fit) / 2), y: pad, whole: true, cuts: false };
  }
  // an edge at graph coordinate e is clear when no box it crosses is strictly inside
  const clear = (lo, hi, e) => lo.every((l, j) => !(e > l && e < hi[j]));
  // the start s of a window of length len clear at both ends that holds [a, b] (the focus
  // box), nearest to want; null if none
  const place = (lo, hi, len, want, a, b) => {
    const cands = [want];
    for (let j = 0; j < lo.length; j++) cands.push(lo[j] - pad, hi[j] + pad - len);
    let best = null;
    for (const s of cands) {
      if (s > a || s + len < b) continue;
      if (clear(lo, hi, s) && clear(lo, hi, s + len) && (best === null || Math.abs(s - want) < Math.abs(best - want))) best = s;
    }
    return best;
  };
  const f = o.focus;
  const ks = [];
  if (o.scale !== undefined) ks.push(o.scale);
  else for (let k = o.maxScale ?? o.minScale * 1.25; k >= o.minScale - 1e-9; k -= 0.01) ks.push(k);
  const ylo = nodes.map((n) => n.y - hh);
  const yhi = nodes.map((n) => n.y + hh);
  for (const k of ks) {
    const w = o.viewWidth / k;
    const h = o.viewHeight / k;
    const y0 = place(ylo, yhi, h, o.top ? f.y - hh - pad : f.y - h / 2, f.y - hh, f.y + hh);
    if (y0 === null) continue;
    // only the boxes the window's rows reach can be cut at its sides
    const rows = nodes.filter((n) => n.y + hh > y0 && n.y - hh < y0 + h);
    const x0 = place(rows.map((n) => n.x - hw), rows.map((n) => n.x + hw), w, f.x - w / 2, f.x - hw, f.x + hw);
    if (x0 === null) continue;
    return { k, x: -x0 * k, y: -y0 * k, whole: false, cuts: false };
  }
  const k = ks[ks.length - 1];
  const y0 = o.top ? f.y - hh - pad : f.y - o.viewHeight / k / 2;
  return { k, x: o.viewWidth / 2 - f.x * k, y: -y0 * k, whole: false, cuts: true };
}
