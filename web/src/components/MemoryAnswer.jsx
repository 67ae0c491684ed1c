// MemoryAnswer.jsx: the answer, at the top of the page: llama.cpp's memory breakdown for the open
// model at the settings and devices shown (its "memory breakdown [MiB]" table: a row per device
// and the host, model + context + compute, MiB rounded down as llama.cpp prints them), the bytes
// per buffer type, per device a stacked bar of weights, KV cache and compute against its memory
// (fits or not, by how much), and the compute buffer lines llama.cpp logs.
import { breakdown, breakdownError, devices, hostMiB } from '../device-state.js';
import { modelSource, sizes, modelError, buildTimes } from '../model-state.js';
import { deviceRows, FIT_MARGIN } from '../core/devices.js';
import { computeLogLine } from '../core/model-settings.js';
import { formatBytes, formatBytesExact, formatMiB } from '../core/format.js';
import { DeviceSweep } from './DeviceSweep.jsx';

const MIB = 1048576;
const mib = (b) => Math.floor(Number(b) / MIB);
/** bytes as llama.cpp's table prints them (MiB rounded down), the exact bytes on hover */
const Mib = ({ b, testid }) => <td class="num" data-testid={testid} data-bytes={String(b)} title={formatBytesExact(b)}>{mib(b)}</td>;

export const PART_COLORS = { model: '#2563eb', context: '#059669', compute: '#d97706', free: '#e5e7eb' };

function Bar({ r }) {
  const cap = r.capacity;
  const scale = Math.max(cap, r.used + (cap ? FIT_MARGIN : 0)) || 1;
  const pct = (b) => `${(100 * b) / scale}%`;
  const verdict = r.fits === null
    ? 'memory not given: not checked'
    : r.fits ? `fits: ${formatBytes(r.spare)} to spare above the ${formatBytes(FIT_MARGIN)} margin` : `does not fit: ${formatBytes(-r.spare)} over (with the ${formatBytes(FIT_MARGIN)} margin)`;
  return (
    <div class="dev-bar-row" data-testid={`bar-${r.device < 0 ? 'host' : r.device}`} data-fits={String(r.fits)} data-spare={r.spare === null ? '' : String(r.spare)}>
      <div class="dev-bar-label"><b>{r.label}</b> <span class="hint">{r.names.join(', ') || 'nothing'}</span></div>
      <div class="dev-bar" role="img" aria-label={`${r.label}: ${formatBytes(r.used)} used of ${cap ? formatBytes(cap) : 'unknown memory'}; ${verdict}`}>
        <span style={{ width: pct(r.model), background: PART_COLORS.model }} title={`weights ${formatBytesExact(r.model)}`} />
        <span style={{ width: pct(r.context), background: PART_COLORS.context }} title={`KV cache ${formatBytesExact(r.context)}`} />
        <span style={{ width: pct(r.compute), background: PART_COLORS.compute }} title={`compute ${formatBytesExact(r.compute)}`} />
        {cap > 0 && <i class="cap-line" style={{ left: pct(cap) }} title={`memory ${formatBytes(cap)}`} />}
        {cap > 0 && <i class="margin-line" style={{ left: pct(cap - FIT_MARGIN) }} title={`memory less the ${formatBytes(FIT_MARGIN)} margin llama.cpp's --fit keeps`} />}
      </div>
      <div class={`dev-verdict ${r.fits === false ? 'wi-bad' : r.fits ? 'wi-ok' : 'hint'}`} data-testid={`verdict-${r.device < 0 ? 'host' : r.device}`}>
        {formatBytes(r.used)}{cap ? ` of ${formatBytes(cap)}` : ''} · {verdict}
      </div>
    </div>
  );
}

export function MemoryAnswer() {
  const src = modelSource.value;
  if (!src || src.unsupported) return null;
  const bd = breakdown.value;
  const devs = devices.value;
  const rows = bd ? deviceRows(bd.memory, devs, hostMiB.value) : [];
  const z = sizes.value;
  return (
    <section class="answer" data-testid="memory-answer">
      <div class="pane-title">Memory <span class="hint">llama.cpp's breakdown at these settings{devs.length ? `, on ${devs.length} device${devs.length > 1 ? 's' : ''}` : ', the CPU alone'}</span></div>
      {breakdownError.value && <p class="wi-bad" data-testid="breakdown-error">{breakdownError.value}</p>}
      {bd && (
        <>
          <table class="breakdown" data-testid="breakdown" data-args={bd.args.join(' ')}>
            <thead><tr><th>memory breakdown [MiB]</th><th>total</th><th>self</th><th>model</th><th>context</th><th>compute</th></tr></thead>
            <tbody>
              {rows.map((r) => (
                <tr data-testid={`breakdown-${r.device < 0 ? 'host' : r.device}`}>
                  <td>{r.device < 0 ? '- Host' : `- ${r.names[0] ?? devs[r.device].kind}`}</td>
                  <td class="num" title={r.capacity ? formatBytesExact(r.capacity) : 'not given'}>{r.capacity ? mib(r.capacity) : ''}</td>
                  <Mib b={r.used} /><Mib b={r.model} /><Mib b={r.context} /><Mib b={r.compute} />
                </tr>
              ))}
            </tbody>
          </table>
          <details class="bufts">
            <summary>bytes per buffer type ({bd.memory.buffer_types.length})</summary>
            <table class="breakdown" data-testid="buffer-types">
              <thead><tr><th>buffer type</th><th>device</th><th>model</th><th>context</th><th>compute</th></tr></thead>
              <tbody>
                {bd.memory.buffer_types.map((b) => (
                  <tr data-testid={`buft-${b.name}`} data-device={b.device} data-model={b.model} data-context={b.context} data-compute={String(b.compute)}>
                    <td>{b.name}</td><td>{b.device < 0 ? 'host' : b.device}</td>
                    <td class="num">{formatBytesExact(b.model)}</td><td class="num">{formatBytesExact(b.context)}</td>
                    <td class="num">{formatBytesExact(b.compute)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </details>
          <div class="dev-bars" data-testid="device-bars">
            {rows.map((r) => <Bar r={r} />)}
            <div class="hint legend-row">
              <span class="swatch" style={{ background: PART_COLORS.model }} /> weights
              <span class="swatch" style={{ background: PART_COLORS.context }} /> KV cache
              <span class="swatch" style={{ background: PART_COLORS.compute }} /> compute
              <i class="cap-line inline" /> memory <i class="margin-line inline" /> less {formatBytes(FIT_MARGIN)} (llama.cpp's --fit margin)
            </div>
          </div>
        </>
      )}
      {z && !modelError.value && (
        <div class="model-sizes">
          <pre data-testid="compute-sizes" title="llama.cpp's log lines for the CPU alone (the timeline below plans this graph)">{z.buffer_types.map(computeLogLine).join('\n')}</pre>
          <p class="hint">
            n_ctx {z.n_ctx} ({z.n_ctx_seq} cells per sequence{z.n_ctx_swa ? `, ${z.n_ctx_swa} in the sliding-window cache` : ''}),
            {' '}{z.n_tokens} tokens in the graph, {z.n_nodes} nodes; <span data-testid="kv-size" title={formatBytesExact(z.kv_bytes)}>KV cache {formatMiB(z.kv_bytes)}</span>
            {devs.length > 0 && '; the timeline below is this CPU-alone graph'}
          </p>
          {buildTimes.value && (
            <p class="hint" data-testid="model-build-ms" data-total={buildTimes.value.total.toFixed(1)}
              data-shown={buildTimes.value.shown?.toFixed(1)} data-at={buildTimes.value.at?.toFixed(1)}>
              {buildTimes.value.shown === undefined ? 'drawing…' : `on screen ${buildTimes.value.shown.toFixed(0)} ms after the change`}
              {' '}(sizes and graph {buildTimes.value.build.toFixed(0)} ms, plan and views {buildTimes.value.plan.toFixed(0)} ms
              {buildTimes.value.shown === undefined ? '' : `, the breakdown and the drawing ${Math.max(0, buildTimes.value.shown - buildTimes.value.total).toFixed(0)} ms`})
            </p>
          )}
        </div>
      )}
      {devs.length > 0 && <DeviceSweep />}
    </section>
  );
}
