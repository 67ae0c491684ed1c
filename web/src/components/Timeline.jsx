// Timeline.jsx: the plan over time. One lane per chunk of each buffer type;
// x = step, y = byte offset; a rectangle per tensor over its lifetime.
//
// It draws whatever timelineSource holds (whatif-state.js): ggml's plan of the graph,
// another planner's plan of one buffer type (a rectangle per item), or a CSV problem
// (a rectangle per row); the source says whether its indices are graph tensors and
// whether it has steps.
//
// Below RECT_LIMIT rectangles they are SVG; above, one canvas. Either way an
// SVG overlay draws axes, chunk and max-size lines, the step cursor, free
// gaps and the selection, and one d3-zoom on the container drives a shared
// x zoom (wheel, drag) and a y zoom per lane (shift+wheel). Hit testing is
// geometric (core/timeline-layout.js), the same for both renderers.
//
// Zooming stays smooth on large plans: zoom events are taken once per animation frame, and
// while they keep coming the canvas only moves its last full drawing to the new zoom
// (drawZoomed, one image copy per lane); the full drawing follows SETTLE_MS after the last one.
// The SVG renderer's rectangles are memoized per lane: a zoom changes one transform each.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { memo } from 'preact/compat';
import { useSignal, useSignalEffect } from '@preact/signals';
import { select as d3select } from 'd3-selection';
import { zoom as d3zoom, zoomIdentity } from 'd3-zoom';
import { scaleLinear } from 'd3-scale';
import { axisTop } from 'd3-axis';
import { graph, graphSource, showViews, step, selected, hovered, hover, select, setStep, picking, pickSource, timelineRange, removeTensor } from '../state.js';
import { selectionKey } from '../core/selection-keys.js';
import { timelineSource, timelineStepInfo, rowHovered, rowSelected, hoverRow, selectRow } from '../whatif-state.js';
import {
  rectBox, byteY, bytesAtY, baseX, zoomX, unzoomX, stepAtBaseX, hitTest, laneAt, laneV,
  zoomXBy, zoomYBy, carryZoom, zoomToSteps, panToSteps, laneByteTicks, IDENTITY_X, IDENTITY_Y,
} from '../core/timeline-layout.js';
import { fillColor, strokeColor, COLORS } from '../core/colors.js';
import { formatBytes } from '../core/format.js';
import { timelineSvg, timelineSvgSize } from '../core/timeline-svg.js';
import { rectLabels } from '../core/timeline-labels.js';
import { chooseTimelineLayout, READABLE_PX, READABLE_SHARE } from '../core/timeline-scale.js';
import { legendMarks } from '../core/timeline-legend.js';
import { drawCanvas, drawZoomed } from './timeline-canvas.js';
import { Tooltip } from './Tooltip.jsx';
import { TimelineLegend } from './TimelineLegend.jsx';
import { registerTimelineExporter } from './io.js';

/** a selected tensor's family (in-place chain, views) is outlined up to this many rectangles */
const MAX_FAMILY_OUTLINES = 400;
/** past this many rectangles the timeline draws on a canvas */
export const RECT_LIMIT = 2000;

/** ?renderer=svg or ?renderer=canvas in the page's URL draws every plan that way (to compare the two) */
const FORCED_RENDERER = typeof location === 'undefined' ? null
  : ['svg', 'canvas'].find((r) => new URLSearchParams(location.search).get('renderer') === r) ?? null;

/** ms without a zoom event after which the canvas is drawn in full again */
const SETTLE_MS = 140;

/** px the timeline may take: most of a screen, so its lanes are tall enough to read */
const availableHeight = () => Math.max(360, Math.round((typeof window === 'undefined' ? 1000 : window.innerHeight) * 0.62));

export function Timeline() {
  const m = timelineSource.value;
  const views = showViews.value;
  const box = useRef(null);
  const canvas = useRef(null);
  const [width, setWidth] = useState(900);
  const [height, setHeight] = useState(availableHeight);
  const [scale, setScale] = useState('auto'); // 'auto': chosen for the plan (core/timeline-scale.js)
  const [zoom, setZoom] = useState({ zx: IDENTITY_X, zys: [] });
  const zref = useRef(zoom);
  zref.current = zoom;
  const zoomedAt = useRef(-Infinity); // when the user last zoomed or panned (performance.now())
  const zoomFrame = useRef(0); // a pending animation frame that hands the zoom to Preact
  const pointer = useSignal(null); // read only by the tooltip, so moving the mouse repaints only it

  useEffect(() => {
    const ro = new ResizeObserver(([e]) => setWidth(Math.max(420, Math.floor(e.contentRect.width))));
    ro.observe(box.current);
    const onResize = () => setHeight(availableHeight());
    window.addEventListener('resize', onResize);
    return () => { ro.disconnect(); window.removeEventListener('resize', onResize); };
  }, []);

  const chosen = useMemo(() => (m ? chooseTimelineLayout(m, { width, height, showViews: views, scale }) : null), [m, width, height, views, scale]);
  const layout = chosen?.layout ?? null;
  const nRects = layout ? layout.lanes.reduce((a, l) => a + l.rects.length, 0) : 0;
  const mode = FORCED_RENDERER ?? (nRects > RECT_LIMIT ? 'canvas' : 'svg');

  // a redrawn plan keeps the zoom that still means the same steps and bytes (carryZoom); another
  // graph starts unzoomed. Done in the commit that shows the new layout (a layout effect), before
  // the page handles another event: a zoom asked for after that commit (the layer slider moved in
  // the frame that shows a new graph) is made on the new layout, and a reset deferred to after the
  // next frame (useEffect) undid it
  const prevLayout = useRef(null);
  const prevSource = useRef(null);
  useLayoutEffect(() => {
    if (!layout) return;
    const sameGraph = prevSource.current === graphSource.peek();
    const next = carryZoom(sameGraph ? prevLayout.current : null, layout, zref.current);
    zref.current = next; // the canvas, drawn by the layout effect below, draws this zoom
    setZoom(next);
    prevLayout.current = layout;
    prevSource.current = graphSource.peek();
  }, [layout]);

  // d3-zoom: we use only the step between two transforms, as s' = f*s + c
  const layoutRef = useRef(layout);
  layoutRef.current = layout;
  useEffect(() => {
    const el = box.current;
    let prev = zoomIdentity;
    let lane = -1;
    const z = d3zoom()
      .scaleExtent([1e-12, 1e12])
      .filter((e) => (!e.ctrlKey || e.type === 'wheel') && !e.button)
      .wheelDelta((e) => -(e.deltaY || e.deltaX) * (e.deltaMode === 1 ? 0.05 : e.deltaMode ? 1 : 0.002) * (e.ctrlKey ? 10 : 1))
      .on('start', (e) => {
        const L = layoutRef.current;
        const y = e.sourceEvent ? e.sourceEvent.offsetY ?? -1 : -1;
        lane = L ? laneAt(L, y) : -1;
      })
      .on('zoom', (e) => {
        const L = layoutRef.current;
        const t = e.transform;
        const f = t.k / prev.k;
        const cx = t.x - f * prev.x;
        const cy = t.y - f * prev.y;
        prev = t;
        if (!L) return;
        const se = e.sourceEvent;
        const cur = zref.current;
        const wheel = se && se.type === 'wheel';
        let { zx, zys } = cur;
        zys = zys.slice();
        if (wheel) {
          const k = laneAt(L, se.offsetY);
          if (se.shiftKey) {
            if (k >= 0) zys[k] = zoomYBy(zys[k] ?? IDENTITY_Y, f, cy, L.lanes[k]);
          } else {
            zx = zoomXBy(zx, f, cx, L);
          }
        } else {
          zx = zoomXBy(zx, 1, cx, L);
          if (lane >= 0) zys[lane] = zoomYBy(zys[lane] ?? IDENTITY_Y, 1, cy, L.lanes[lane]);
        }
        zref.current = { zx, zys };
        zoomedAt.current = performance.now();
        // one render per animation frame, however many events came in it
        if (!zoomFrame.current) {
          zoomFrame.current = requestAnimationFrame(() => { zoomFrame.current = 0; setZoom(zref.current); });
        }
      });
    d3select(el).call(z).on('dblclick.zoom', null);
    return () => { d3select(el).on('.zoom', null); cancelAnimationFrame(zoomFrame.current); zoomFrame.current = 0; };
  }, []);

  // asked from outside (a layer, a range of steps): show those steps; a tensor selected
  // elsewhere (search, text, graph) is panned into view. Signal effects: no re-render of the rects
  useSignalEffect(() => {
    const r = timelineRange.value;
    const L = layoutRef.current;
    if (!r || !L) return;
    const next = { zx: zoomToSteps(L, r.first, r.last), zys: zref.current.zys };
    zref.current = next;
    setZoom(next);
  });
  useSignalEffect(() => {
    const i = selected.value;
    const L = layoutRef.current;
    const src = timelineSource.peek();
    const r = src && src.tensors && i >= 0 ? src.byTensor[i] : null;
    if (!r || !L) return;
    const zx = panToSteps(L, zref.current.zx, r.first, r.view ? r.last : r.end);
    if (zx === zref.current.zx) return;
    const next = { zx, zys: zref.current.zys };
    zref.current = next;
    setZoom(next);
  });

  // canvas renderer: drawn before the frame is painted; while zooming, quick frames (see the top)
  const info = timelineStepInfo.value;
  const drawn = useRef({ layout: null, info: null }); // what the last full drawing showed
  const settle = useRef(0);
  useLayoutEffect(() => {
    if (mode !== 'canvas' || !canvas.current || !layout) return;
    clearTimeout(settle.current);
    const full = () => {
      const t0 = performance.now();
      drawCanvas(canvas.current, layoutRef.current, zref.current, info);
      window.__gallocDrawMs = performance.now() - t0;
      drawn.current = { layout: layoutRef.current, info };
    };
    const zooming = performance.now() - zoomedAt.current < SETTLE_MS;
    if (zooming && drawn.current.layout === layout && drawn.current.info === info) {
      const t0 = performance.now();
      if (drawZoomed(canvas.current, layout, zoom)) {
        window.__gallocDrawMs = performance.now() - t0;
        settle.current = setTimeout(() => { if (canvas.current && layoutRef.current === layout) full(); }, SETTLE_MS);
        return;
      }
    }
    full();
  }, [mode, layout, zoom, info]);
  useEffect(() => () => clearTimeout(settle.current), []);

  // export hook: the zoom on screen, the marks the legend lists
  useEffect(() => {
    if (!layout || !m) return undefined;
    const exportView = () => ({ zx: zref.current.zx, zys: zref.current.zys, title: m.title || 'timeline', subtitle: m.caption || '',
      legend: legendMarks(layout, m, showViews.peek(), false) });
    registerTimelineExporter({
      svg: () => timelineSvg(layout, m, exportView()),
      png: () => { const v = exportView(); const { width: w, height: h } = timelineSvgSize(layout, m, v); return svgToPng(timelineSvg(layout, m, v), w, h); },
    });
    return () => registerTimelineExporter(null);
  }, [layout, m]);

  // first paint time, for the e2e measurement
  useEffect(() => {
    if (!layout) return;
    requestAnimationFrame(() => {
      window.__gallocTimeline = { rects: nRects, mode, paintedAt: performance.now() };
    });
  }, [layout, mode]);

  const onMove = (e) => {
    if (!layout) return;
    const r = box.current.getBoundingClientRect();
    const px = e.clientX - r.left;
    const py = e.clientY - r.top;
    const i = hitTest(layout, zoom.zx, zoom.zys, px, py);
    if (m.tensors) hover(i); else hoverRow(i);
    pointer.value = i >= 0 ? { x: e.clientX, y: e.clientY } : null;
  };
  const onClick = (e) => {
    if (!layout) return;
    box.current.focus({ preventScroll: true }); // the keys act on what was clicked (d3-zoom keeps the click from focusing)
    const r = box.current.getBoundingClientRect();
    const px = e.clientX - r.left;
    const py = e.clientY - r.top;
    const i = hitTest(layout, zoom.zx, zoom.zys, px, py);
    if (!m.tensors) { selectRow(i); return; }
    if (picking.value && i >= 0) { pickSource(i); return; }
    if (m.stepped && (e.altKey || (step.value !== null && i < 0))) {
      const s = stepAtBaseX(layout, unzoomX(zoom.zx, px));
      if (s >= -1 && s < layout.steps) setStep(s);
      return;
    }
    select(i);
  };

  const onKey = (e) => {
    if (!m.tensors) return; // a CSV problem's rows: nothing to remove
    const a = selectionKey(e.key, { selected: selected.value, count: graph.value?.tensors.length ?? 0, shift: e.shiftKey });
    if (!a) return;
    e.preventDefault();
    if (a.type === 'select') select(a.i);
    else if (a.type === 'remove') removeTensor(a.i, a.cascade);
    else select(-1);
  };
  if (!m || !layout) return <div class="timeline-pane" ref={box} />;
  return (
    <div class="timeline-pane">
      <div class="pane-title">
        Timeline{m.caption ? <span class="caption" data-testid="timeline-caption">{m.caption}</span> : null}
        <span class="hint">{nRects.toLocaleString()} rectangles · {mode} · x: {m.stepped ? 'step' : 'time'}, y: byte offset in the chunk · click: select{m.stepped ? ' · alt+click: go to step' : ''}</span>
        <label class="hint" title={`auto: linear when at least ${READABLE_SHARE * 100} % of the tensors are ${READABLE_PX} px tall or more on it, else piecewise; lanes made taller (up to 200 px) until they are. log: offsets on a logarithmic scale; piecewise: every band between two tensor edges as tall as the log of its bytes. Both keep small tensors visible next to a huge one`}>
          bytes{' '}
          <select value={scale} onChange={(e) => setScale(e.target.value)} data-testid="byte-scale" data-scale={chosen.scale}>
            <option value="auto">auto: {chosen.auto ? chosen.scale : 'for the plan'}</option>
            <option value="linear">linear</option>
            <option value="log">log</option>
            <option value="piecewise">piecewise</option>
          </select>
        </label>
        <button class="small" onClick={() => setZoom({ zx: IDENTITY_X, zys: [] })} data-testid="reset-zoom">reset zoom</button>
      </div>
      <TimelineLegend {...legendMarks(layout, m, views, step.value !== null)} />
      <div class="timeline" ref={box} style={{ height: `${layout.height}px` }} data-testid="timeline" data-mode={mode} data-source={m.kind}
        data-planner={m.planner} data-zoom-steps={zoom.zx.k.toFixed(3)}
        data-view-first={stepAtBaseX(layout, unzoomX(zoom.zx, layout.left + 0.5))} data-view-last={stepAtBaseX(layout, unzoomX(zoom.zx, layout.right - 0.5))} onPointerMove={onMove} onPointerLeave={() => { if (m.tensors) hover(-1); else hoverRow(-1); pointer.value = null; }} onClick={onClick}
        tabindex="0" role="application" aria-label="timeline: arrows select the previous or next tensor, Del removes it, Esc clears" onKeyDown={onKey}>
        {mode === 'canvas' ? <canvas ref={canvas} class="layer" /> : <SvgRects layout={layout} zoom={zoom} info={info} />}
        <Overlay layout={layout} zoom={zoom} m={m} info={info} />
        <Tooltip pointer={pointer} source={m} />
      </div>
    </div>
  );
}

function SvgRects({ layout, zoom, info }) {
  const live = useMemo(() => (info ? new Set([...info.live, ...info.liveViews]) : null), [info]);
  return (
    <svg class="layer" width={layout.width} height={layout.height} data-testid="timeline-svg">
      <defs>
        {layout.lanes.map((l, k) => (
          <clipPath id={`tl-clip-${k}`}><rect x={layout.left} y={l.top} width={layout.right - layout.left} height={l.height} /></clipPath>
        ))}
      </defs>
      {layout.lanes.map((lane, k) => {
        const zy = zoom.zys[k] ?? IDENTITY_Y;
        const bottom = lane.top + lane.height;
        return (
          <g clip-path={`url(#tl-clip-${k})`}>
            <g transform={`translate(${zoom.zx.x} ${bottom - zy.t}) scale(${zoom.zx.k} ${-zy.k})`}>
              <LaneRects layout={layout} lane={lane} live={live} />
            </g>
          </g>
        );
      })}
    </svg>
  );
}

/** one lane's rectangles in unzoomed coordinates (the zoom is the parent's transform): a zoom re-renders none of them */
const LaneRects = memo(({ layout, lane, live }) => lane.rects.map((r) => {
  const x0 = baseX(layout, r.first);
  const x1 = baseX(layout, (r.view ? r.last : r.end) + 1);
  const faded = live && !live.has(r.i);
  const v0 = laneV(lane, r.offset);
  return (
    <rect data-t={r.i} x={x0} y={v0} width={Math.max(x1 - x0, 0.5)} height={Math.max(laneV(lane, r.offset + r.size) - v0, 0.01)}
      fill={r.view ? 'none' : fillColor(r.family, r.i)} stroke={strokeColor(r.family)}
      stroke-width={r.view ? 1 : 0.5} stroke-dasharray={r.view ? '3 2' : undefined}
      vector-effect="non-scaling-stroke" opacity={faded ? COLORS.faded : 1} />
  );
}));

function Overlay({ layout, zoom, m, info }) {
  const axisRef = useRef(null);
  const sel = m.tensors ? selected.value : rowSelected.value;
  const hov = m.tensors ? hovered.value : rowHovered.value;
  const s = m.stepped ? step.value : null;
  const x = (st) => zoomX(zoom.zx, baseX(layout, st));
  useEffect(() => {
    // ticks over the steps in view (zoomed in, the whole range would leave none on screen)
    const all = scaleLinear().domain([-1, layout.steps]).range([x(-1), x(layout.steps)]);
    const xs = all.copy().domain([all.invert(layout.left), all.invert(layout.right)]).range([layout.left, layout.right]);
    const ticks = Math.max(2, Math.floor((layout.right - layout.left) / 70));
    const ax = axisTop(xs).tickValues(xs.ticks(ticks).filter(Number.isInteger)).tickFormat(String);
    const g = d3select(axisRef.current).call(ax);
    g.selectAll('.tick').style('display', (v) => (xs(v) < layout.left - 1 || xs(v) > layout.right + 1 ? 'none' : null));
  });
  const selRect = sel >= 0 ? m.byTensor[sel] : null;
  const hovRect = hov >= 0 ? m.byTensor[hov] : null;
  const laneIndex = (r) => layout.lanes.findIndex((l) => l.buffer === r.buffer && l.chunk === r.chunk);
  const outline = (r, cls) => {
    if (!r) return null;
    const k = laneIndex(r);
    if (k < 0) return null;
    const b = rectBox(layout, layout.lanes[k], r, zoom.zx, zoom.zys[k] ?? IDENTITY_Y);
    return <rect class={cls} x={b.x - 1} y={b.y - 1} width={b.w + 2} height={b.h + 2} />;
  };
  let family = selRect ? m.rects.filter((r) => r.family === selRect.family && r.i !== sel) : [];
  // a family of thousands (a long in-place chain): the outlines of the ones nearest the selection
  if (family.length > MAX_FAMILY_OUTLINES) family = family.sort((a, b) => Math.abs(a.i - sel) - Math.abs(b.i - sel)).slice(0, MAX_FAMILY_OUTLINES);
  const parentRect = selRect && selRect.parent >= 0 ? m.byTensor[selRect.parent] : null;
  const labels = useMemo(() => (m.tensors ? rectLabels(layout, m.label ?? ((i) => m.doc.tensors[i].name), zoom) : []), [layout, zoom, m]);
  return (
    <svg class="overlay" width={layout.width} height={layout.height}>
      <g ref={axisRef} class="axis" transform={`translate(0 ${layout.sections.length ? layout.sections[0].top - 4 : 24})`} />
      {layout.sections.map((sec) => {
        const b = m.buffers[sec.buffer];
        return (
          <text class="section" x={8} y={sec.top + 15}>
            {b.name}: {formatBytes(b.size)} in {b.chunkSizes.length} chunk{b.chunkSizes.length === 1 ? '' : 's'}
            {b.maxSize ? ` · max ${formatBytes(b.maxSize)}` : ''}{b.capacity ? ` · capacity ${formatBytes(b.capacity)}` : ''} · align {b.alignment}
            {sec.empty ? ' — no memory needed' : ''}
          </text>
        );
      })}
      {layout.lanes.map((lane, k) => {
        const zy = zoom.zys[k] ?? IDENTITY_Y;
        const cy = byteY(lane, zy, lane.size);
        const my = lane.maxSize ? byteY(lane, zy, lane.maxSize) : null;
        const capY = lane.capacity ? byteY(lane, zy, lane.capacity) : null;
        const hw = info ? info.highWater.find((h) => h.buffer === lane.buffer && h.chunk === lane.chunk) : null;
        return (
          <g>
            <rect class="lane-frame" x={layout.left} y={lane.top} width={layout.right - layout.left} height={lane.height} />
            <ByteAxis lane={lane} zy={zy} left={layout.left} />
            <text class="lane-label" x={layout.right} y={lane.top - 3} text-anchor="end" data-testid="lane-label">chunk {lane.chunk} · {formatBytes(lane.size)}</text>
            <svg x={layout.left} y={lane.top} width={layout.right - layout.left} height={lane.height} overflow="hidden">
              <g transform={`translate(${-layout.left} ${-lane.top})`}>
                {cy >= lane.top && cy <= lane.top + lane.height && <line class="chunk-line" x1={layout.left} x2={layout.right} y1={cy} y2={cy} />}
                {my !== null && my >= lane.top && my <= lane.top + lane.height && <line class="max-line" x1={layout.left} x2={layout.right} y1={my} y2={my} />}
                {capY !== null && capY >= lane.top && capY <= lane.top + lane.height && <line class="capacity-line" x1={layout.left} x2={layout.right} y1={capY} y2={capY} />}
                {hw && <line class="hw-line" x1={layout.left} x2={layout.right} y1={byteY(lane, zy, hw.size)} y2={byteY(lane, zy, hw.size)} />}
                {info && info.gaps.filter((g) => g.buffer === lane.buffer && g.chunk === lane.chunk).map((g) => {
                  const y0 = byteY(lane, zy, g.offset + g.size);
                  const y1 = byteY(lane, zy, g.offset);
                  return <rect class="gap" x={x(s)} y={y0} width={Math.max(x(s + 1) - x(s), 2)} height={Math.max(y1 - y0, 1)} />;
                })}
              </g>
            </svg>
          </g>
        );
      })}
      <g class="rect-labels" data-testid="rect-labels">
        {labels.map((l) => <text class="rect-label" x={l.x} y={l.y} dy="0.32em" data-t={l.i}>{l.text}</text>)}
      </g>
      {s !== null && <rect class="cursor" x={x(s)} y={layout.sections[0]?.top ?? 0} width={Math.max(x(s + 1) - x(s), 1.5)} height={layout.height - (layout.sections[0]?.top ?? 0)} />}
      {info && info.placed.map((i) => outline(m.byTensor[i], 'placed'))}
      {info && info.freed.map((i) => outline(m.byTensor[i], 'freed'))}
      {family.slice(0, 400).map((r) => outline(r, 'family'))}
      {parentRect && outline(parentRect, 'parent')}
      {outline(selRect, 'selected')}
      {hov !== sel && outline(hovRect, 'hovered')}
    </svg>
  );
}

/**
 * Byte ticks of a lane at round binary values (core/timeline-layout.js laneByteTicks, which the
 * SVG export draws too), over what its zoom shows.
 * @param {{lane: object, zy: object, left: number}} props
 */
function ByteAxis({ lane, zy, left }) {
  const bottom = lane.top + lane.height;
  return (
    <g class="axis y" data-testid="byte-axis">
      <line x1={left} x2={left} y1={lane.top} y2={bottom} />
      {laneByteTicks(lane, zy).map((t) => (
        <g class="tick" data-bytes={t.bytes}>
          <line x1={left - 5} x2={left} y1={t.y} y2={t.y} />
          <text x={left - 8} y={t.y} dy="0.32em" text-anchor="end">{t.label}</text>
        </g>
      ))}
    </g>
  );
}

async function svgToPng(svgText, w, h) {
  const img = new Image();
  const url = URL.createObjectURL(new Blob([svgText], { type: 'image/svg+xml' }));
  await new Promise((ok, fail) => { img.onload = ok; img.onerror = fail; img.src = url; });
  const c = document.createElement('canvas');
  c.width = w * 2;
  c.height = h * 2;
  const ctx = c.getContext('2d');
  ctx.scale(2, 2);
  ctx.drawImage(img, 0, 0);
  URL.revokeObjectURL(url);
  return new Promise((ok) => c.toBlob(ok, 'image/png'));
}
