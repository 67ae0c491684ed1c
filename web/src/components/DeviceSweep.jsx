// DeviceSweep.jsx: what to change: the memory per device at every -ngl (0 to all layers and the
// output) or at -c 1024, 2048, ... up to the training context, as `galloc model --sweep ngl|c`
// prints it, each device's line against its memory less llama.cpp's --fit margin, and the largest
// -ngl / -c where every device fits. Computed in the sweep worker (device-state.js).
import { useState } from 'preact/hooks';
import { scaleLinear, scaleLog } from 'd3-scale';
import { devices, hostMiB, deviceSweep, runDeviceSweep, cancelDeviceSweep } from '../device-state.js';
import { currentModel, modelLayers } from '../model-state.js';
import { deviceRows, FIT_MARGIN } from '../core/devices.js';
import { formatBytes } from '../core/format.js';

const W = 520, H = 200, M = { left: 56, right: 90, top: 8, bottom: 30 };
const COLORS = ['#2563eb', '#dc2626', '#059669', '#d97706', '#7c3aed', '#0891b2', '#be185d', '#4d7c0f'];
const MIB = 1048576;

/** per point the rows of deviceRows and whether all of them fit (a device without memory given is not checked) */
function evaluate(points, devs, host) {
  return points.map((p) => {
    if (!p.memory) return { ...p, rows: null, fits: false };
    const rows = deviceRows(p.memory, devs, host);
    return { ...p, rows, fits: !rows.some((r) => r.fits === false) };
  });
}

function Plot({ pts, axis, devs }) {
  const ok = pts.filter((p) => p.rows);
  if (!ok.length) return null;
  const xs = ok.map((p) => p.x);
  const x = (axis === 'c' ? scaleLog().base(2) : scaleLinear()).domain([Math.min(...xs), Math.max(...xs, Math.min(...xs) + 1)]).range([M.left, W - M.right]);
  // the y axis in GiB past 2 GiB (round GiB ticks), else MiB; y() takes MiB
  const ymaxMib = Math.max(...ok.flatMap((p) => p.rows.map((r) => r.used)), ...devs.map((d) => d.memoryMiB * MIB)) / MIB;
  const unit = ymaxMib > 2048 ? 1024 : 1;
  const yu = scaleLinear().domain([0, (ymaxMib / unit) * 1.05]).nice().range([H - M.bottom, M.top]);
  const y = (mib) => yu(mib / unit);
  const series = ok[0].rows.map((r, i) => ({ label: r.label, i, color: COLORS[i % COLORS.length] }));
  const yt = yu.ticks(5).map((v) => v * unit);
  const xt = axis === 'c' ? xs : x.ticks(Math.min(10, xs.length));
  return (
    <svg class="sweep-plot" data-testid="device-sweep-plot" data-axis={axis} viewBox={`0 0 ${W} ${H}`} width={W} height={H}>
      {yt.map((v) => <g><line x1={M.left} x2={W - M.right} y1={y(v)} y2={y(v)} stroke="#f3f4f6" /><text x={M.left - 4} y={y(v) + 3} text-anchor="end" class="tick">{unit === 1024 ? `${v / 1024} GiB` : `${v} MiB`}</text></g>)}
      {xt.map((v) => <text x={x(v)} y={H - M.bottom + 12} text-anchor="middle" class="tick">{axis === 'c' && v >= 1024 ? `${v / 1024}K` : v}</text>)}
      <text x={(M.left + W - M.right) / 2} y={H - 2} text-anchor="middle" class="axis-label">{axis === 'c' ? 'context length -c (tokens)' : 'layers on the devices -ngl'}</text>
      {ok.map((p) => p.fits === false && <rect x={x(p.x) - 2} y={M.top} width="4" height={H - M.top - M.bottom} fill="#fee2e2" />)}
      {series.map((s) => {
        const r0 = ok[0].rows[s.i];
        const cap = r0.capacity;
        return (
          <g data-series={s.label}>
            {cap > 0 && <line class="sweep-cap" x1={M.left} x2={W - M.right} y1={y((cap - FIT_MARGIN) / MIB)} y2={y((cap - FIT_MARGIN) / MIB)} stroke={s.color} stroke-dasharray="5 3" />}
            <polyline fill="none" stroke={s.color} stroke-width="1.6" points={ok.map((p) => `${x(p.x)},${y(p.rows[s.i].used / MIB)}`).join(' ')} />
            {ok.map((p) => (
              <circle class="device-sweep-point" cx={x(p.x)} cy={y(p.rows[s.i].used / MIB)} r="2.5" fill={s.color}
                data-x={p.x} data-device={p.rows[s.i].device} data-bytes={p.rows[s.i].used} data-fits={String(p.fits)}>
                <title>{`${axis === 'c' ? '-c' : '-ngl'} ${p.x}: ${s.label} ${formatBytes(p.rows[s.i].used)}`}</title>
              </circle>
            ))}
            <text x={W - M.right + 6} y={M.top + 12 + s.i * 14} fill={s.color} class="legend">{s.label}</text>
          </g>
        );
      })}
    </svg>
  );
}

export function DeviceSweep() {
  const sw = deviceSweep.value;
  const [axis, setAxis] = useState('ngl');
  const [err, setErr] = useState('');
  const start = () => {
    setErr('');
    const m = currentModel();
    if (!m) return;
    let train = 0;
    if (axis === 'c') {
      try { train = m.sizes({ n_ctx: 0, n_ubatch: 1, n_batch: 1, flash_attn: 1 }).n_ctx; } catch (e) { setErr(e.message); return; }
    }
    runDeviceSweep(axis, modelLayers.value, train);
  };
  const pts = sw.status === 'done' ? evaluate(sw.points, devices.value, hostMiB.value) : [];
  const fitting = pts.filter((p) => p.fits === true);
  const best = fitting.length ? fitting[fitting.length - 1] : null;
  return (
    <div class="model-sweep" data-testid="device-sweep">
      <div class="wi-controls">
        <button data-testid="device-sweep-run" onClick={start} disabled={sw.status === 'running' || (axis === 'ngl' && !modelLayers.value)}>What fits?</button>
        <label>sweep{' '}
          <select data-testid="device-sweep-axis" value={axis} onChange={(e) => setAxis(e.target.value)}>
            <option value="ngl">-ngl 0 … {modelLayers.value ? modelLayers.value + 1 : 'all'}</option>
            <option value="c">-c 1024 … the training context</option>
          </select>
        </label>
        {sw.status === 'running' && <span data-testid="device-sweep-progress">{sw.done} / {sw.total} <button onClick={cancelDeviceSweep}>Stop</button></span>}
        {(sw.status === 'failed' || err) && <span class="wi-bad">{err || sw.error}</span>}
      </div>
      {sw.status === 'done' && (
        <>
          <p data-testid="device-sweep-answer" class={best ? 'wi-ok' : 'wi-bad'}>
            {best ? `largest ${sw.axis === 'c' ? '-c' : '-ngl'} where every device fits: ${best.x}` : `no ${sw.axis === 'c' ? '-c' : '-ngl'} swept fits`}
          </p>
          <Plot pts={pts} axis={sw.axis} devs={devices.value} />
        </>
      )}
    </div>
  );
}
