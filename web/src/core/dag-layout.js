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
    const src = (doc.tensors[i].src || []).filter((s) => s !== null && s !== undefined && inSet.has(s));
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
