// MemoryChart.jsx: memory over time, per buffer type: the live bytes of every step (area) and
// the allocator's high-water mark (line), the peak marked. Hovering a step lists what is live
// there; brushing a range of steps zooms the timeline to it (d3-brush). Numbers from galloc.explain.
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { brushX } from 'd3-brush';
import { select as d3select } from 'd3-selection';
import { graph, showSteps, timelineRange } from '../state.js';
import { explanation } from '../explain-state.js';
import { layerText, liveAtStep, seriesMax, stepText } from '../core/explain-model.js';
import { binaryTicks, formatTickBytes } from '../core/byte-ticks.js';
import { formatBytes } from '../core/format.js';

const HEIGHT = 150;
const M = { left: 70, right: 14, top: 16, bottom: 22 };
const HOVER_ROWS = 8;

/**
 * a step function through the series: index i covers [x(i), x(i + 1)); with more steps than
 * `columns` (a pixel each), each column of steps drawn at its largest value (the peak stays)
 */
function stepPath(series, x, y, closeAt, columns = Infinity) {
  const n = series.length;
  const per = n > 2 * columns ? Math.ceil(n / columns) : 1;
  let d = '';
  for (let i = 0; i < n; i += per) {
    let v = Number(series[i]);
    for (let k = i + 1; k < Math.min(n, i + per); k++) v = Math.max(v, Number(series[k]));
    const yy = y(v).toFixed(2);
    d += `${i === 0 ? 'M' : 'L'}${x(i).toFixed(2)},${yy}L${x(Math.min(n, i + per)).toFixed(2)},${yy}`;
  }
  if (closeAt !== undefined && n) d += `L${x(n).toFixed(2)},${closeAt}L${x(0).toFixed(2)},${closeAt}Z`;
  return d;
}

function HoverBox({ ex, b, i, px, width }) {
  const step = i - 1;
  const live = useMemo(() => liveAtStep(ex, b.buffer_type, step), [ex, b, step]);
  const names = graph.value?.tensors ?? [];
  const boxW = 300;
  const left = Math.max(0, Math.min(px + 12, width - boxW - 4)); // inside the chart, left of the pointer when needed
  return (
    <div class="mc-hover" style={{ left: `${left}px`, width: `${boxW}px` }} data-testid={`memory-hover-${b.buffer_type}`} data-step={step}>
      <div><b>{stepText(step)}</b>: live {formatBytes(b.live_bytes[i])}, high water {formatBytes(b.high_water[i])}</div>
      {live.slice(0, HOVER_ROWS).map((t) => (
        <div class="mc-row" key={t}>{formatBytes(ex.hold_bytes[t])} {names[t]?.name || `#${t}`}
          {ex.layer[t] >= 0 && <span class="hint"> {layerText(ex, ex.layer[t])}</span>}</div>
      ))}
      {live.length > HOVER_ROWS && <div class="hint">and {live.length - HOVER_ROWS} more</div>}
    </div>
  );
}

function BufferChart({ ex, b, name, width }) {
  const n = b.live_bytes.length; // n_steps + 1: index 0 before the first node
  const maxLive = useMemo(() => seriesMax(b.live_bytes), [b]);
  const maxAll = useMemo(() => seriesMax(b.high_water), [b]);
  const top = Number(maxAll > maxLive ? maxAll : maxLive) || 1;
  const { step: tickStep, ticks } = binaryTicks(0, top, 4);
  if (ticks[ticks.length - 1] < top) ticks.push(ticks[ticks.length - 1] + tickStep); // a tick at or above the top
  const yTop = Math.max(ticks[ticks.length - 1], 1);
  const innerW = Math.max(10, width - M.left - M.right);
  const x = (i) => M.left + (i / Math.max(n, 1)) * innerW;
  const y = (v) => M.top + (1 - v / yTop) * (HEIGHT - M.top - M.bottom);
  const stepAt = (px) => Math.max(0, Math.min(n - 1, Math.floor(((px - M.left) / innerW) * n)));
  const [hover, setHover] = useState(null); // {i, px}
  const brushG = useRef(null);

  // brushing a range of steps zooms the timeline to it; a click without a range resets it
  useEffect(() => {
    const g = brushG.current;
    if (!g) return undefined;
    const br = brushX().extent([[M.left, M.top], [M.left + innerW, HEIGHT - M.bottom]]).on('end', (e) => {
      if (!e.sourceEvent) return; // our own clearing below
      if (!e.selection) return; // a click: the timeline keeps its zoom
      const [a, c] = e.selection;
      showSteps(stepAt(a) - 1, stepAt(c - 1e-6) - 1);
    });
    d3select(g).call(br);
    return () => d3select(g).on('.brush', null);
  }, [innerW, n]);
  // another graph: the brush goes
  useEffect(() => { if (brushG.current) d3select(brushG.current).call(brushX().clear); }, [ex]);

  const pi = b.peak_step + 1;
  const onMove = (e) => {
    const r = e.currentTarget.getBoundingClientRect();
    const px = e.clientX - r.left;
    setHover(px >= M.left && px <= M.left + innerW ? { i: stepAt(px), px } : null);
  };
  return (
    <div class="mc-buffer" style={{ position: 'relative' }}>
      <div class="mc-title"><b>{name}</b> <span class="hint">live bytes per step (area) and the allocator's high-water mark (line); drag to zoom the timeline</span></div>
      <svg width={width} height={HEIGHT} data-testid={`memory-chart-${b.buffer_type}`} data-max-live={String(maxLive)}
        data-max-high-water={String(maxAll)} data-peak-step={b.peak_step} onPointerMove={onMove} onPointerLeave={() => setHover(null)}>
        {ticks.map((t) => (
          <g key={t}>
            <line x1={M.left} x2={M.left + innerW} y1={y(t)} y2={y(t)} class="mc-grid" />
            <text x={M.left - 6} y={y(t) + 4} class="mc-tick" text-anchor="end">{formatTickBytes(t)}</text>
          </g>
        ))}
        <path d={stepPath(b.live_bytes, x, y, y(0), innerW)} class="mc-live" data-testid={`memory-live-${b.buffer_type}`} />
        <path d={stepPath(b.high_water, x, y, undefined, innerW)} class="mc-hw" />
        <line x1={x(pi) + (x(pi + 1) - x(pi)) / 2} x2={x(pi) + (x(pi + 1) - x(pi)) / 2} y1={M.top} y2={HEIGHT - M.bottom} class="mc-peak" />
        <circle cx={x(pi) + (x(pi + 1) - x(pi)) / 2} cy={y(Number(b.peak_live))} r={4} class="mc-peak-dot" />
        <text x={Math.min(x(pi) + 8, M.left + innerW - 180)} y={M.top - 4} class="mc-peak-label" data-testid={`memory-peak-${b.buffer_type}`}>
          peak {formatBytes(b.peak_live)} {b.peak_step < 0 ? 'before the first node' : `at ${stepText(b.peak_step)}`}
        </text>
        <text x={M.left} y={HEIGHT - 6} class="mc-tick">step −1</text>
        <text x={M.left + innerW} y={HEIGHT - 6} class="mc-tick" text-anchor="end">step {n - 2}</text>
        {hover && <line x1={x(hover.i)} x2={x(hover.i)} y1={M.top} y2={HEIGHT - M.bottom} class="mc-cursor" />}
        <g ref={brushG} class="mc-brush" />
      </svg>
      {hover && <HoverBox ex={ex} b={b} i={hover.i} px={hover.px} width={width} />}
    </div>
  );
}

export function MemoryChart() {
  const ex = explanation.value;
  const g = graph.value;
  const box = useRef(null);
  const [width, setWidth] = useState(800);
  useEffect(() => {
    if (!box.current) return undefined;
    const ro = new ResizeObserver(([e]) => setWidth(Math.max(320, Math.floor(e.contentRect.width))));
    ro.observe(box.current);
    return () => ro.disconnect();
  }, [Boolean(ex)]);
  if (!ex || !g) return null;
  return (
    <div class="memory-chart" ref={box} data-testid="memory-chart">
      <div class="peak-title"><b>Memory over time</b>
        {timelineRange.value && <button class="small" onClick={() => showSteps(-1, ex.n_steps - 1)} data-testid="memory-unzoom">timeline: every step</button>}
      </div>
      {ex.buffers.filter((b) => b.shared_with === null).map((b) => (
        <BufferChart key={b.buffer_type} ex={ex} b={b} name={g.buffer_types[b.buffer_type]?.name ?? b.name} width={width - 20} />
      ))}
    </div>
  );
}
