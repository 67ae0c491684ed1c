// SweepPlot.jsx: compute buffer size against context length (one line per micro-batch and flash
// attention setting) or against the micro-batch (one line per flash attention setting, at one
// context). D3 makes the scales and axes; JSX draws the lines and points.
import { useEffect, useRef } from 'preact/hooks';
import { scaleLog, scaleLinear } from 'd3-scale';
import { axisBottom, axisLeft } from 'd3-axis';
import { select } from 'd3-selection';
import { SWEEP_AXES } from '../core/model-settings.js';

const W = 520, H = 240, M = { left: 64, right: 120, top: 10, bottom: 34 };
const COLORS = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed', '#0891b2'];

/** total compute bytes of a point (every buffer type) */
const total = (p) => (p.sizes ? p.sizes.buffer_types.reduce((n, b) => n + Number(b.compute), 0) : null);

/**
 * @param {{points: Array<{settings: object, sizes: object|null}>, axis?: 'n_ctx'|'n_ubatch'}} props
 */
export function SweepPlot({ points, axis = 'n_ctx' }) {
  const xAxis = useRef(null);
  const yAxis = useRef(null);
  const ok = points.filter((p) => p.sizes);
  const xs = ok.map((p) => p.settings[axis]);
  const mib = ok.map((p) => total(p) / 1048576);
  const x = scaleLog().base(2).domain([Math.min(...xs), Math.max(...xs)]).range([M.left, W - M.right]);
  const y = scaleLinear().domain([0, Math.max(1, ...mib) * 1.05]).nice().range([H - M.bottom, M.top]);
  const series = new Map();
  for (const p of ok) {
    const fixed = axis === 'n_ctx' ? `-ub ${p.settings.n_ubatch}` : `-c ${p.settings.n_ctx}`;
    const key = `${fixed} -fa ${p.settings.flash_attn ? 'on' : 'off'}`;
    if (!series.has(key)) series.set(key, []);
    series.get(key).push(p);
  }
  useEffect(() => {
    select(xAxis.current).call(axisBottom(x).tickValues([...new Set(xs)]).tickFormat((v) => (v >= 1024 ? `${v / 1024}K` : String(v))));
    select(yAxis.current).call(axisLeft(y).ticks(6));
  });
  return (
    <svg class="sweep-plot" data-testid="sweep-plot" data-axis={axis} viewBox={`0 0 ${W} ${H}`} width={W} height={H}>
      <g ref={xAxis} transform={`translate(0,${H - M.bottom})`} />
      <g ref={yAxis} transform={`translate(${M.left},0)`} />
      <text x={(M.left + W - M.right) / 2} y={H - 2} text-anchor="middle" class="axis-label">{SWEEP_AXES[axis].label}</text>
      <text x={12} y={M.top + 4} class="axis-label" transform={`rotate(-90 12 ${M.top + 4})`} text-anchor="end">compute buffer (MiB)</text>
      {[...series.entries()].map(([key, ps], i) => (
        <g data-series={key}>
          <polyline fill="none" stroke={COLORS[i % COLORS.length]} stroke-width="1.6"
            points={ps.map((p) => `${x(p.settings[axis])},${y(total(p) / 1048576)}`).join(' ')} />
          {ps.map((p) => (
            <circle class="sweep-point" cx={x(p.settings[axis])} cy={y(total(p) / 1048576)} r="3" fill={COLORS[i % COLORS.length]}
              data-ctx={p.settings.n_ctx} data-ub={p.settings.n_ubatch} data-fa={p.settings.flash_attn} data-bytes={total(p)}>
              <title>{`${axis === 'n_ctx' ? `-c ${p.settings.n_ctx}` : `-ub ${p.settings.n_ubatch}`} ${key}: ${(total(p) / 1048576).toFixed(2)} MiB`}</title>
            </circle>
          ))}
          <text x={W - M.right + 6} y={M.top + 12 + i * 14} fill={COLORS[i % COLORS.length]} class="legend">{key}</text>
        </g>
      ))}
    </svg>
  );
}
