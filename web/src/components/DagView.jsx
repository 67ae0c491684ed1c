// DagView.jsx: the graph as a DAG (d3-dag layout), sources above consumers.
// Click selects (or completes a rewire the inspector started); dragging a
// node onto another makes it a source of that one (which slot: asked when
// there are several); the whole graph is shown when small, else the
// neighbourhood of the selection.
import { useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { select as d3select } from 'd3-selection';
import { zoom as d3zoom, zoomIdentity } from 'd3-zoom';
import { graph, graphSource, model, selected, hovered, select, hover, picking, pickSource, cancelPick, removeTensor, addTensor, rewire, setNotice } from '../state.js';
import { graphIndex } from '../core/graph-model.js';
import { dagSubset, layoutDag, frameView } from '../core/dag-layout.js';
import { formatShape } from '../core/format.js';
import { selectionKey } from '../core/selection-keys.js';
import { fillColor } from '../core/colors.js';
import { leafKind, isExternal, opDesc } from '../core/op-rules.js';

const NW = 150;
const NH = 40;
/** an input whose memory comes from outside the graph says so; a weight always does */
const leafLabel = (t) => (leafKind(t) === 'input' && isExternal(t) ? 'input extern' : leafKind(t));
const clip = (s, n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const DRAG_START_PX = 5;
const MIN_FIT_SCALE = 0.6;

/** the same graph, edited, in the same kind of view: keep the zoom (edits keep most of a layout in place) */
function sameView(a, b) {
  return a !== null && a.source === b.source && a.mode === b.mode && a.center === b.center && Math.abs(a.n - b.n) <= Math.max(2, a.n * 0.2);
}

/** the tensor node under a point of the page, or -1 */
function nodeAt(clientX, clientY) {
  const el = document.elementFromPoint(clientX, clientY)?.closest('[data-node]');
  return el ? Number(el.getAttribute('data-node')) : -1;
}

export function DagView() {
  const g = graph.value;
  const m = model.value;
  const sel = selected.value;
  const svgRef = useRef(null);
  const [t, setT] = useState(zoomIdentity);
  const [drag, setDrag] = useState(null);   // {from, x, y} in graph coordinates while a node is dragged
  const [choose, setChoose] = useState(null); // {from, to, left, top}: which source slot of `to` takes `from`
  const dragged = useRef(false);             // the click that ends a drag must not select
  const index = useMemo(() => (g ? graphIndex(g) : null), [g]);
  const full = g ? g.tensors.length <= 160 : true;
  const center = full ? null : sel;
  const dag = useMemo(() => {
    if (!g) return null;
    const sub = dagSubset(g, index.consumers, { center });
    return { ...sub, ...layoutDag(g, sub.ids, { nodeWidth: NW, nodeHeight: NH }) };
  }, [g, index, center]);

  // one d3-zoom for the pane's life; the view is fitted again only for another graph (see
  // sameView), so editing a tensor keeps what the user zoomed to. Layout effects: the view is
  // fitted (and a selection brought into it) in the commit that draws the graph, before the page
  // takes another event, so a fit left to after the next frame cannot undo what the user did in
  // that frame, and what is on screen once the graph is there is already the fitted view
  const zoomRef = useRef(null);
  const shown = useRef(null);
  const hasSvg = Boolean(g && dag);
  useLayoutEffect(() => {
    const el = svgRef.current;
    if (!el) return undefined;
    const z = d3zoom().scaleExtent([0.05, 4]).on('zoom', (e) => setT(e.transform));
    d3select(el).call(z).on('dblclick.zoom', null);
    zoomRef.current = z;
    shown.current = null; // a new svg starts fitted
    return () => { d3select(el).on('.zoom', null); zoomRef.current = null; };
  }, [hasSvg]);
  useLayoutEffect(() => {
    const el = svgRef.current;
    if (!el || !dag || !dag.width || !zoomRef.current) return;
    const prev = shown.current;
    shown.current = { source: graphSource.peek(), mode: dag.mode, center, n: dag.ids.length };
    if (sameView(prev, shown.current)) return;
    const r = el.getBoundingClientRect();
    // below MIN_FIT_SCALE the names cannot be read: show the top of the graph, around its
    // first node, at a readable scale where no box is cut by the edges (the wheel and drag reach the rest)
    const top = dag.nodes.reduce((a, b) => (b.y < a.y || (b.y === a.y && Math.abs(b.x - dag.width / 2) < Math.abs(a.x - dag.width / 2)) ? b : a));
    const v = frameView(dag.nodes, {
      nodeWidth: NW, nodeHeight: NH, width: dag.width, height: dag.height, viewWidth: r.width, viewHeight: r.height,
      minScale: MIN_FIT_SCALE, focus: top, top: true,
    });
    d3select(el).call(zoomRef.current.transform, zoomIdentity.translate(v.x, v.y).scale(v.k));
  }, [dag]);
  // a tensor selected elsewhere (text, timeline) is brought into view
  useLayoutEffect(() => {
    const el = svgRef.current;
    const n = dag?.nodes.find((x) => x.i === sel);
    if (!el || !n || !zoomRef.current) return;
    const r = el.getBoundingClientRect();
    const [x, y] = t.apply([n.x, n.y]);
    if (x >= NW * t.k / 2 && x <= r.width - NW * t.k / 2 && y >= NH * t.k / 2 && y <= r.height - NH * t.k / 2) return;
    // around it, at the same scale, with no box cut by the edges when there is such a place
    const v = frameView(dag.nodes, {
      nodeWidth: NW, nodeHeight: NH, width: dag.width, height: dag.height, viewWidth: r.width, viewHeight: r.height,
      minScale: t.k, scale: t.k, focus: n,
    });
    d3select(el).call(zoomRef.current.transform, zoomIdentity.translate(v.x, v.y).scale(v.k));
  }, [sel, dag]);

  if (!g || !dag) return <div class="dag-pane" />;
  const pos = new Map(dag.nodes.map((n) => [n.i, n]));
  const onNode = (i, e) => {
    e.stopPropagation();
    svgRef.current?.focus({ preventScroll: true }); // Del, arrows and Esc act on what was clicked
    if (dragged.current) return;
    if (picking.value) pickSource(i); else select(i);
  };
  const onKey = (e) => {
    if (e.key === 'Escape' && picking.value) { cancelPick(); e.preventDefault(); return; }
    const a = selectionKey(e.key, { selected: sel, count: g.tensors.length, shift: e.shiftKey });
    if (!a) return;
    e.preventDefault();
    if (a.type === 'select') select(a.i);
    else if (a.type === 'remove') removeTensor(a.i, a.cascade);
    else select(-1);
  };
  // drag a node onto another: it becomes one of that node's sources
  const dropOn = (from, to, e) => {
    const tt = g.tensors[to];
    const slots = (tt.src || []).map((j, k) => ({ k, j })).filter((x) => x.j !== null && x.j !== undefined);
    if (!slots.length) {
      setNotice(`${tt.name} has no sources to replace (it is a ${tt.op === 'NONE' ? leafKind(tt) : opDesc(tt)}); add a consumer of ${g.tensors[from].name} from the inspector instead`, 'error');
    } else if (slots.length === 1) {
      rewire(to, slots[0].k, from);
    } else {
      const r = svgRef.current.parentElement.getBoundingClientRect();
      setChoose({ from, to, slots, left: e.clientX - r.left, top: e.clientY - r.top });
    }
  };
  const onNodeDown = (i, e) => {
    if (e.button !== 0 || picking.value) return;
    e.stopPropagation(); // a drag that starts on a node rewires; on the background it pans
    const svg = svgRef.current;
    const start = { x: e.clientX, y: e.clientY };
    let moved = false;
    const toGraph = (ev) => {
      const r = svg.getBoundingClientRect();
      return { x: (ev.clientX - r.left - t.x) / t.k, y: (ev.clientY - r.top - t.y) / t.k };
    };
    const move = (ev) => {
      if (!moved && Math.hypot(ev.clientX - start.x, ev.clientY - start.y) < DRAG_START_PX) return;
      moved = true;
      setDrag({ from: i, ...toGraph(ev) });
    };
    const up = (ev) => {
      window.removeEventListener('pointermove', move);
      window.removeEventListener('pointerup', up);
      setDrag(null);
      if (!moved) return;
      dragged.current = true;
      setTimeout(() => { dragged.current = false; }, 0);
      const to = nodeAt(ev.clientX, ev.clientY);
      if (to >= 0 && to !== i) dropOn(i, to, ev);
    };
    window.addEventListener('pointermove', move);
    window.addEventListener('pointerup', up);
  };
  const focusName = sel >= 0 ? g.tensors[sel]?.name : g.tensors[dag.ids[0]]?.name;
  return (
    <div class="dag-pane">
      <div class="pane-title">
        Graph{' '}
        <span class="hint">
          {dag.mode === 'full' ? `${g.tensors.length} tensors` : `neighbourhood of ${focusName} (${dag.ids.length} of ${g.tensors.length.toLocaleString()} tensors; select another to move)`}
          {' · click: select · drag onto another: make it a source · Del: remove (shift: with dependents)'}
        </span>
        <button class="small" onClick={() => addTensor('input', [], 'f32, 1024')} data-testid="add-input">+ input</button>
        {sel >= 0 && <button class="small" onClick={() => addTensor('scale', [sel])}>+ scale({clip(g.tensors[sel].name, 12)})</button>}
      </div>
      {picking.value && <div class="picking">pick the new source {picking.value.slot} of {g.tensors[picking.value.tensor]?.name}: click a tensor (Esc cancels)</div>}
      {choose && (
        <div class="slot-menu" style={{ left: `${choose.left}px`, top: `${choose.top}px` }} data-testid="slot-menu">
          <div class="hint">{g.tensors[choose.from].name} becomes which source of {g.tensors[choose.to].name}?</div>
          {choose.slots.map(({ k, j }) => (
            <button class="small" data-slot={k} onClick={() => { setChoose(null); rewire(choose.to, k, choose.from); }}>
              src[{k}] (now {g.tensors[j]?.name ?? `#${j}`})
            </button>
          ))}
          <button class="small" onClick={() => setChoose(null)}>cancel</button>
        </div>
      )}
      <svg ref={svgRef} class="dag" tabindex="0" role="application" aria-label="graph view: arrows select the previous or next tensor, Del removes it, Esc clears" onKeyDown={onKey} data-testid="dag" onClick={() => !picking.value && !dragged.current && select(-1)}>
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
                onPointerDown={(e) => onNodeDown(n.i, e)} onMouseDown={(e) => e.stopPropagation()}
                onPointerEnter={() => hover(n.i)} onPointerLeave={() => hover(-1)} data-node={n.i}>
                <rect width={NW} height={NH} rx={5} fill={fill} />
                <text x={6} y={15} class="n-name">{clip(tt.name, 24)}</text>
                <text x={6} y={31} class="n-op">{clip(`${tt.op === 'NONE' ? leafLabel(tt) : opDesc(tt)} ${formatShape(tt.ne)}`, 26)}</text>
              </g>
            );
          })}
          {drag && pos.get(drag.from) && (
            <line class="drag-line" x1={pos.get(drag.from).x} y1={pos.get(drag.from).y} x2={drag.x} y2={drag.y} marker-end="url(#arrow)" />
          )}
        </g>
      </svg>
      {pos.size === 0 && <div class="hint">empty graph</div>}
    </div>
  );
}
