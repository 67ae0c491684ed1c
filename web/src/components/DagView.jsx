// DagView.jsx: the graph as a DAG (d3-dag layout), sources above consumers.
// Click selects (or completes a rewire the inspector started); the whole
// graph is shown when small, else the neighbourhood of the selection.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { select as d3select } from 'd3-selection';
import { zoom as d3zoom, zoomIdentity } from 'd3-zoom';
import { graph, model, selected, hovered, select, hover, picking, pickSource, cancelPick, removeTensor, addTensor } from '../state.js';
import { graphIndex } from '../core/graph-model.js';
import { dagSubset, layoutDag } from '../core/dag-layout.js';
import { formatShape } from '../core/format.js';
import { fillColor } from '../core/colors.js';
import { leafKind, opDesc } from '../core/op-rules.js';

const NW = 150;
const NH = 40;
const clip = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export function DagView() {
  const g = graph.value;
  const m = model.value;
  const sel = selected.value;
  const svgRef = useRef(null);
  const [t, setT] = useState(zoomIdentity);
  const index = useMemo(() => (g ? graphIndex(g) : null), [g]);
  const full = g ? g.tensors.length <= 160 : true;
  const center = full ? null : sel;
  const dag = useMemo(() => {
    if (!g) return null;
    const sub = dagSubset(g, index.consumers, { center });
    return { ...sub, ...layoutDag(g, sub.ids, { nodeWidth: NW, nodeHeight: NH }) };
  }, [g, index, center]);

  useEffect(() => {
    const el = svgRef.current;
    if (!el) return undefined;
    const z = d3zoom().scaleExtent([0.05, 4]).on('zoom', (e) => setT(e.transform));
    d3select(el).call(z).on('dblclick.zoom', null);
    const r = el.getBoundingClientRect();
    if (dag && dag.width) {
      const k = Math.min(1, r.width / (dag.width + 20), Math.max(0.35, r.height / (dag.height + 20)));
      d3select(el).call(z.transform, zoomIdentity.translate(Math.max(10, (r.width - dag.width * k) / 2), 10).scale(k));
    }
    return () => d3select(el).on('.zoom', null);
  }, [dag]);

  if (!g || !dag) return <div class="dag-pane" />;
  const pos = new Map(dag.nodes.map((n) => [n.i, n]));
  const onNode = (i, e) => {
    e.stopPropagation();
    if (picking.value) pickSource(i); else select(i);
  };
  const onKey = (e) => {
    if ((e.key === 'Delete' || e.key === 'Backspace') && sel >= 0) removeTensor(sel, e.shiftKey);
    if (e.key === 'Escape') cancelPick();
  };
  const focusName = sel >= 0 ? g.tensors[sel]?.name : g.tensors[dag.ids[0]]?.name;
  return (
    <div class="dag-pane">
      <div class="pane-title">
        Graph{' '}
        <span class="hint">
          {dag.mode === 'full' ? `${g.tensors.length} tensors` : `neighbourhood of ${focusName} (${dag.ids.length} of ${g.tensors.length.toLocaleString()} tensors; select another to move)`}
          {' · click: select · Del: remove (shift: with dependents)'}
        </span>
        <button class="small" onClick={() => addTensor('input', [], 'f32, 1024')} data-testid="add-input">+ input</button>
        {sel >= 0 && <button class="small" onClick={() => addTensor('scale', [sel])}>+ scale({clip(g.tensors[sel].name, 12)})</button>}
      </div>
      {picking.value && <div class="picking">pick the new source {picking.value.slot} of {g.tensors[picking.value.tensor]?.name}: click a tensor (Esc cancels)</div>}
      <svg ref={svgRef} class="dag" tabIndex={0} onKeyDown={onKey} data-testid="dag" onClick={() => !picking.value && select(-1)}>
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" fill="#9ca3af" />
          </marker>
        </defs>
        <g transform={`translate(${t.x} ${t.y}) scale(${t.k})`}>
          {dag.links.map((l) => {
            const pts = l.points.map(([x, y]) => [x, y]);
            if (pts.length >= 2) {
              pts[0][1] += NH / 2;
              pts[pts.length - 1][1] -= NH / 2 + 1;
            }
            const d = pts.map(([x, y], k) => `${k ? 'L' : 'M'}${x} ${y}`).join(' ');
            const hot = l.from === sel || l.to === sel;
            return <path class={`edge ${hot ? 'hot' : ''}`} d={d} marker-end="url(#arrow)" />;
          })}
          {dag.nodes.map((n) => {
            const tt = g.tensors[n.i];
            const r = m ? m.byTensor[n.i] : null;
            const ext = tt.buffer_type !== undefined && tt.buffer_type !== null;
            const isView = tt.view_src !== undefined && tt.view_src !== null;
            const fill = ext ? '#e5e7eb' : r && !r.view ? fillColor(r.family, n.i) : '#ffffff';
            const cls = `node ${n.i === sel ? 'sel' : ''} ${n.i === hovered.value ? 'hov' : ''} ${isView ? 'view' : ''}`;
            return (
              <g class={cls} transform={`translate(${n.x - NW / 2} ${n.y - NH / 2})`} onClick={(e) => onNode(n.i, e)}
                onPointerEnter={() => hover(n.i)} onPointerLeave={() => hover(-1)} data-node={n.i}>
                <rect width={NW} height={NH} rx={5} fill={fill} />
                <text x={6} y={15} class="n-name">{clip(tt.name, 24)}</text>
                <text x={6} y={31} class="n-op">{clip(`${tt.op === 'NONE' ? leafKind(tt) : opDesc(tt)} ${formatShape(tt.ne)}`, 26)}</text>
              </g>
            );
          })}
        </g>
      </svg>
      {pos.size === 0 && <div class="hint">empty graph</div>}
    </div>
  );
}
