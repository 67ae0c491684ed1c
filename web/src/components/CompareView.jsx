// CompareView.jsx: compare two plans: the graph on screen (A) against a preset or an imported
// graph (B), or ggml's plan of it (A) against an offline planner's packing from the What-if panel
// (B): both buffers' sizes, the difference (B − A) split into the peak's and the packing's, the
// names whose bytes at the peaks account for it, and each side's tensors placed above the other's
// size. Numbers from galloc.explainCompare / explainOffline (computed in C); only formatted here.
import { presets, select } from '../state.js';
import {
  compareOpen, compareOther, compareFold, compareError, comparison, setCompareOpen, setCompareFold, compareWithPreset, compareWithText,
  compareWithOffline, compareWithSettings,
} from '../explain-state.js';
import { modelShown, settings } from '../model-state.js';
import { settingVariants } from '../core/model-settings.js';
import { formatDiff, stepText } from '../core/explain-model.js';
import { formatBytes, formatBytesExact } from '../core/format.js';

const ROWS = 15;

function Diff({ value, testid }) {
  const d = BigInt(value);
  return (
    <td class={`num ${d > 0n ? 'cmp-up' : d < 0n ? 'cmp-down' : ''}`} title={`${d > 0n ? '+' : ''}${d.toString()} bytes`} data-testid={testid}
      data-bytes={d.toString()}>{formatDiff(d, formatBytes)}</td>
  );
}

function Size({ value, present = true }) {
  return <td class="num" title={present ? formatBytesExact(value) : ''}>{present ? formatBytes(value) : 'absent'}</td>;
}

const OFFLINE = [['best', 'best offline plan'], ['exact', 'exact search'], ['greedy-by-size', 'greedy by size'], ['greedy-by-breadth', 'greedy by breadth']];

/** one side's tensors placed above the other side's size of their chunk */
function Above({ rows, side, other, selectable, testid }) {
  if (!rows || rows.length === 0) return null;
  return (
    <>
      <table class="cmp-table" data-testid={testid}>
        <thead><tr><th title={`${side} needs these bytes where ${other} needs none`}>{side}'s tensors above {other}'s size</th><th>chunk</th><th>offset</th><th>bytes</th><th>above</th><th>from</th></tr></thead>
        <tbody>
          {rows.slice(0, ROWS).map((r) => (
            <tr key={r.tensor}>
              <td>{selectable
                ? <button class="linklike" onClick={() => select(r.tensor)} title="select it" data-testid="compare-above-row">{r.name}</button>
                : <span data-testid="compare-above-row">{r.name}</span>}</td>
              <td class="num">{r.chunk}</td>
              <td class="num" title={formatBytesExact(r.offset)}>{formatBytes(r.offset)}</td>
              <td class="num" title={formatBytesExact(r.bytes)}>{formatBytes(r.bytes)}</td>
              <td class="num" title={formatBytesExact(r.above)} data-bytes={String(r.above)}>{formatBytes(r.above)}</td>
              <td>{stepText(r.step)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length > ROWS && <div class="hint">and {rows.length - ROWS} more tensors</div>}
    </>
  );
}

function BufferDiff({ d, folded, labels, sameGraph }) {
  return (
    <div class="cmp-buffer" data-testid={`compare-buffer-${d.name}`}>
      <table class="cmp-table">
        <thead><tr><th>{d.name}</th><th>A ({labels[0]})</th><th>B{labels[1] ? ` (${labels[1]})` : ''}</th><th>B − A</th></tr></thead>
        <tbody>
          <tr><td>size</td><Size value={d.size_a} present={d.buffer_a >= 0} /><Size value={d.size_b} present={d.buffer_b >= 0} /><Diff value={d.size_diff} testid="compare-size-diff" /></tr>
          <tr><td>peak of live bytes</td><Size value={d.peak_a} /><Size value={d.peak_b} /><Diff value={d.peak_diff} testid="compare-peak-diff" /></tr>
          <tr class="hint"><td>at</td><td>{stepText(d.peak_step_a)}</td><td>{stepText(d.peak_step_b)}</td><td /></tr>
          <tr><td>packing above the peak</td><td /><td /><Diff value={d.overhead_diff} testid="compare-pack-diff" /></tr>
        </tbody>
      </table>
      <Above rows={d.above_a} side="A" other="B" selectable testid="compare-above-a" />
      <Above rows={d.above_b} side="B" other="A" selectable={sameGraph} testid="compare-above-b" />
      {d.rows.length === 0 ? <div class="hint">The same tensors are live at both peaks: the difference is packing{d.size_diff !== 0 ? ' (the tensors above show where)' : ''}.</div> : (
        <table class="cmp-table">
          <thead><tr><th>live at the peaks{folded ? ' (per layer-folded name)' : ''}</th><th>A</th><th>B</th><th>B − A</th></tr></thead>
          <tbody>
            {d.rows.slice(0, ROWS).map((r) => (
              <tr key={r.name}>
                <td>{r.tensor_a >= 0
                  ? <button class="linklike" onClick={() => select(r.tensor_a)} title="select it in this graph" data-testid="compare-row">{r.name}</button>
                  : <span data-testid="compare-row">{r.name}</span>}
                  {(r.count_a > 1 || r.count_b > 1) && <span class="hint"> ×{r.count_a}/{r.count_b}</span>}</td>
                <Size value={r.bytes_a} /><Size value={r.bytes_b} /><Diff value={r.diff} testid="compare-row-diff" />
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {d.rows.length > ROWS && <div class="hint" data-testid="compare-more">and {d.rows.length - ROWS} more names</div>}
    </div>
  );
}

/** the open model at other settings (one flag changed) */
function ModelVariants() {
  const variants = settingVariants(settings.value);
  const other = compareOther.value;
  const k = other?.settings ? variants.findIndex((v) => JSON.stringify(v.settings) === JSON.stringify(other.settings)) : -1;
  return (
    <select data-testid="compare-settings" title="the model on screen built again with one of llama.cpp's flags changed: A is the page's settings, B these"
      value={k >= 0 ? String(k) : ''}
      onChange={(e) => { const v = variants[Number(e.target.value)]; if (e.target.value !== '' && v) compareWithSettings(v.settings, v.label); }}>
      <option value="">or this model with…</option>
      {variants.map((v, i) => <option value={String(i)}>{v.label}</option>)}
    </select>
  );
}

function Chooser() {
  const other = compareOther.value;
  const onFile = async (e) => {
    const f = e.target.files?.[0];
    if (f) compareWithText(await f.text(), f.name);
    e.target.value = '';
  };
  return (
    <div class="cmp-chooser">
      B:{' '}
      <select data-testid="compare-preset" value={other?.label?.startsWith('preset ') ? other.label.slice(7) : ''}
        onChange={(e) => e.target.value && compareWithPreset(e.target.value)}>
        <option value="">pick a preset…</option>
        {presets.value.map((p) => <option value={p.name}>{p.name}</option>)}
      </select>{' '}
      <select data-testid="compare-offline" value={other?.offline ?? ''} title="ggml's plan of this graph against an offline planner's (the What-if panel's analysis of its buffer type)"
        onChange={(e) => e.target.value && compareWithOffline(e.target.value)}>
        <option value="">or ggml's plan vs an offline plan…</option>
        {OFFLINE.map(([v, text]) => <option value={v}>{text}</option>)}
      </select>{' '}
      {modelShown.value && <ModelVariants />}{' '}
      <label class="small-button">or import a graph… <input type="file" accept=".json,application/json" onChange={onFile} data-testid="compare-file" hidden /></label>{' '}
      <label class="hint"><input type="checkbox" checked={compareFold.value} onChange={(e) => setCompareFold(e.target.checked)} /> fold by layer</label>
      {other && <span class="hint"> · B is {other.label}</span>}
    </div>
  );
}

export function CompareView() {
  if (!compareOpen.value) {
    return (
      <div class="compare closed">
        <button class="small" onClick={() => setCompareOpen(true)} data-testid="compare-open">Compare two plans…</button>
        <span class="hint">this graph against a preset or another graph, or ggml's plan against an offline one: sizes, the difference, the tensors behind it</span>
      </div>
    );
  }
  const c = comparison.value;
  const offline = c && c.planner !== undefined;
  const labels = offline ? ['ggml\u2019s plan', `${c.planner}${c.final ? '' : ', search running'}`] : ['this graph', ''];
  return (
    <div class="compare" data-testid="compare-view">
      <div class="peak-title"><b>Compare two plans</b> <button class="small" onClick={() => setCompareOpen(false)}>close</button></div>
      <Chooser />
      {compareError.value && <div class="error" data-testid="compare-error">{compareError.value}</div>}
      {c?.error && <div class="error" data-testid="compare-error">{c.error}</div>}
      {c?.pending && <div class="hint" data-testid="compare-pending">{c.pending}…</div>}
      {offline && <div class="hint" data-testid="compare-offline-note">A: ggml's plan of this graph · B: the same graph with buffer type {c.a.buffers[c.bufferType]?.name ?? c.bufferType} packed by {c.planner} (the What-if panel; its other buffer types as ggml plans them)</div>}
      {c?.diff && (
        <>
          <div class="cmp-total" data-testid="compare-total" data-total-a={String(c.diff.total_a)} data-total-b={String(c.diff.total_b)} data-planner={c.planner ?? ''}>
            total: A <b title={formatBytesExact(c.diff.total_a)}>{formatBytes(c.diff.total_a)}</b>, B{' '}
            <b title={formatBytesExact(c.diff.total_b)}>{formatBytes(c.diff.total_b)}</b>, B − A{' '}
            <b data-testid="compare-diff" data-bytes={String(c.diff.total_diff)} title={`${c.diff.total_diff} bytes`}>{formatDiff(c.diff.total_diff, formatBytes)}</b>
          </div>
          {c.diff.buffers.map((d) => <BufferDiff key={d.name} d={d} folded={c.diff.folded} labels={labels} sameGraph={offline} />)}
        </>
      )}
    </div>
  );
}
