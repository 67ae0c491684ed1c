// PeakPanel.jsx: why the buffer is this big, at a glance: per buffer type the allocator's size,
// the peak of live bytes and its step, the tensors live there largest first (one row per
// layer-folded name, or per tensor), and the tensor that last raised each chunk's size.
// Clicking a tensor selects it everywhere (state.js select). Numbers from galloc.explain.
import { useState } from 'preact/hooks';
import { graph, select, selected, setStep, showSteps } from '../state.js';
import { explanation, peakFolded, setPeakFolded } from '../explain-state.js';
import { layerText, layersText, stepText } from '../core/explain-model.js';
import { formatBytes, formatBytesExact, formatShape } from '../core/format.js';

const ROWS = 12; // rows shown before "show all"

function TensorName({ t, name }) {
  return (
    <button class={`linklike${selected.value === t ? ' sel' : ''}`} onClick={() => select(t)} title={`select #${t} everywhere`}
      data-testid="peak-tensor" data-tensor={t}>{name || `#${t}`}</button>
  );
}

function Pct({ value }) {
  return <td class="num">{value < 0.05 && value > 0 ? '<0.1' : value.toFixed(1)}%</td>;
}

function LiveRows({ ex, b, all }) {
  const rows = all ? b.live : b.live.slice(0, ROWS);
  return rows.map((t) => (
    <tr key={t.tensor} data-bytes={String(t.bytes)}>
      <td><TensorName t={t.tensor} name={t.name} /></td>
      <td>{t.op}</td><td>{t.type} {formatShape(t.ne)}</td>
      <td class="num" title={formatBytesExact(t.bytes)}>{formatBytes(t.bytes)}</td><Pct value={t.percent} />
      <td class="hint">{layerText(ex, t.layer)}</td>
    </tr>
  ));
}

function GroupRows({ ex, b, all }) {
  const rows = all ? b.groups : b.groups.slice(0, ROWS);
  return rows.map((g) => {
    const big = b.live.find((t) => t.tensor === g.tensor);
    return (
      <tr key={g.name} data-bytes={String(g.bytes)}>
        <td><TensorName t={g.tensor} name={g.count > 1 ? `${g.name} ×${g.count}` : g.name} />
          {g.count > 1 && <span class="hint"> largest {big?.name}</span>}</td>
        <td>{big?.op}</td><td>{big ? `${big.type} ${formatShape(big.ne)}` : ''}</td>
        <td class="num" title={formatBytesExact(g.bytes)}>{formatBytes(g.bytes)}</td><Pct value={g.percent} />
        <td class="hint">{layersText(ex, g)}</td>
      </tr>
    );
  });
}

function BufferPeak({ ex, b, name }) {
  const [all, setAll] = useState(false);
  const folded = peakFolded.value && ex.n_layers > 0;
  const n = folded ? b.groups.length : b.live.length;
  const lastStep = ex.n_steps - 1;
  return (
    <div class="peak-buffer" data-testid={`peak-buffer-${b.buffer_type}`} data-size={String(b.size)} data-peak={String(b.peak_live)}
      data-peak-step={b.peak_step}>
      <div class="peak-head">
        <b>{name}</b>: <b title={formatBytesExact(b.size)}>{formatBytes(b.size)}</b> in {b.chunks.length} chunk{b.chunks.length === 1 ? '' : 's'};
        peak of live bytes <b title={formatBytesExact(b.peak_live)}>{formatBytes(b.peak_live)}</b> at{' '}
        <button class="linklike" title="show this step on the timeline" data-testid={`peak-step-${b.buffer_type}`}
          onClick={() => { setStep(b.peak_step); showSteps(b.peak_step - 20, b.peak_step + 20); }}>{stepText(b.peak_step)}</button>
        {b.peak_step >= 0 && <span class="hint"> of 0–{lastStep}</span>}; above it {formatBytes(b.overhead)} ({b.overhead_percent.toFixed(2)}%)
      </div>
      {b.live.length === 0 ? <div class="hint">nothing is live in it</div> : (
        <table class="peak-table" data-testid={`peak-live-${b.buffer_type}`}>
          <thead>
            <tr><th>live at the peak{folded ? ', per layer-folded name' : ''}</th><th>op</th><th>type, shape</th><th class="num">bytes</th><th class="num">of buffer</th><th>layer</th></tr>
          </thead>
          <tbody>{folded ? <GroupRows ex={ex} b={b} all={all} /> : <LiveRows ex={ex} b={b} all={all} />}</tbody>
        </table>
      )}
      {n > ROWS && <button class="small" onClick={() => setAll(!all)} data-testid={`peak-all-${b.buffer_type}`}>{all ? `show ${ROWS}` : `show all ${n}`}</button>}
      <ul class="peak-chunks" data-testid={`peak-chunks-${b.buffer_type}`}>
        {b.chunks.map((c) => (
          <li key={c.chunk}>
            chunk {c.chunk}: <b title={formatBytesExact(c.size)}>{formatBytes(c.size)}</b>
            {c.raiser ? (
              <span> — size last raised by <TensorName t={c.raiser.tensor} name={c.raiser.name} /> ({c.raiser.op},{' '}
                {formatBytes(c.raiser.bytes)} at offset {formatBytes(c.raiser.offset)}, {stepText(c.raiser.step)}
                {c.raiser.layer >= 0 ? `, ${layerText(ex, c.raiser.layer)}` : ''})</span>
            ) : <span class="hint"> — holds nothing</span>}
          </li>
        ))}
      </ul>
    </div>
  );
}

export function PeakPanel() {
  const ex = explanation.value;
  const g = graph.value;
  if (!ex || !g) return null;
  const own = ex.buffers.filter((b) => b.shared_with === null);
  return (
    <div class="peak" data-testid="peak-panel">
      <div class="peak-title">
        <b>Why the buffer is this big</b>
        {ex.n_layers > 0 && (
          <label class="hint"><input type="checkbox" checked={peakFolded.value} onChange={(e) => setPeakFolded(e.target.checked)}
            data-testid="peak-fold" /> one row per layer-folded name ({ex.n_layers} layers)</label>
        )}
      </div>
      {own.map((b) => <BufferPeak key={b.buffer_type} ex={ex} b={b} name={g.buffer_types[b.buffer_type]?.name ?? b.name} />)}
    </div>
  );
}
