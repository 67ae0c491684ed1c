// WhatIf.jsx: the What-if panel: how far ggml's plan of one buffer type (or a CSV
// problem) is from the lower bound, what the offline planners do, which plan the
// timeline draws; the budget of the exact search; CSV import (WhatIfCsv.jsx).
import { graph, model } from '../state.js';
import {
  whatifOpen, whatifBufferType, whatifBudget, whatif, whatifRunning, whatifElapsed, whatifError, shownPlanner, csvProblem,
  setWhatifOpen, setWhatifBuffer, setWhatifBudget, rerunWhatif, stopWhatif, showPlanner, closeCsv, canShow, BUDGETS,
} from '../whatif-state.js';
import { whatifRows, whatifSummary } from '../core/whatif-model.js';
import { formatBytes, formatBytesExact } from '../core/format.js';
import { WhatIfCsv } from './WhatIfCsv.jsx';

const LABELS = { ggml: 'ggml (online)', 'greedy-by-size': 'greedy by size', 'greedy-by-breadth': 'greedy by breadth', exact: 'exact search' };

/** @param {number} ms */
function formatMs(ms) {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  return `${ms < 10 ? ms.toFixed(2) : ms.toFixed(1)} ms`;
}

const budgetLabel = (ms) => (ms === 0 ? 'heuristics only' : ms < 1000 ? `${ms} ms` : `${ms / 1000} s`);

function Status() {
  const run = whatifRunning.value;
  const w = whatif.value;
  const err = whatifError.value;
  if (run) {
    const what = run.phase === 'exact' ? `exact search… ${formatMs(whatifElapsed.value)} of at most ${budgetLabel(run.budgetMs)}` : 'planning…';
    return (
      <span class="wi-status" data-testid="whatif-status" data-state="running">
        {what} <button class="small" onClick={stopWhatif} data-testid="whatif-stop">stop</button>
      </span>
    );
  }
  if (err && !csvProblem.value) return <span class="wi-status error" data-testid="whatif-status" data-state="error">{err}</span>;
  if (!w) return <span class="wi-status" data-testid="whatif-status" data-state="idle" />;
  return (
    <span class="wi-status hint" data-testid="whatif-status" data-state="done" data-final={String(w.final)} data-ms={w.ms.toFixed(1)} data-seq={w.seq}>
      {w.final ? `analysed in ${formatMs(w.ms)} (in a worker)` : 'exact search stopped: the heuristics\u2019 numbers'}{' '}
      <button class="small" onClick={rerunWhatif} data-testid="whatif-rerun">run again</button>
    </span>
  );
}

function Proof({ row, running }) {
  if (row.name !== 'exact') return row.checked ? null : <span class="wi-bad">fails the checker</span>;
  if (running) return <span class="hint">searching…</span>;
  if (row.proved) return <span class="wi-ok" title={`${row.nodes.toLocaleString()} search nodes`}>proved optimal</span>;
  return <span class="hint" title={row.note}>not proved: nothing below {formatBytes(row.bound)} ({row.nodes.toLocaleString()} nodes)</span>;
}

function Table({ result, running }) {
  const rows = whatifRows(result);
  const shown = shownPlanner.value;
  return (
    <table class="wi-table" data-testid="whatif-table">
      <thead>
        <tr>
          <th title="draw this plan on the timeline">draw</th><th>planner</th><th>total</th><th>above the bound</th>
          <th>%</th><th>chunks</th><th>time</th><th />
        </tr>
      </thead>
      <tbody>
        <tr class="wi-bound">
          <td /><td title="the most bytes live at one step: no plan can need less">lower bound (peak of live bytes)</td>
          <td data-testid="whatif-lower-bound" data-bytes={String(result.lower_bound)} title={formatBytesExact(result.lower_bound)}>{formatBytes(result.lower_bound)}</td>
          <td colSpan={5} />
        </tr>
        {rows.map((r) => (
          <tr class={r.best ? 'wi-best' : ''} data-testid={`whatif-row-${r.name}`} data-bytes={String(r.total)} data-valid={String(r.valid)}
            data-checked={String(r.checked)} data-proved={String(r.proved)} data-time-ms={r.timeMs.toFixed(3)}>
            <td><input type="radio" name="wi-draw" checked={shown === r.name} disabled={!canShow(r.name)} data-testid={`whatif-show-${r.name}`}
              aria-label={`draw the ${r.name} plan`} onChange={() => showPlanner(r.name)} /></td>
            <td>{LABELS[r.name] ?? r.name}{r.best ? <span class="wi-tag" data-testid="whatif-best">best</span> : null}</td>
            <td title={formatBytesExact(r.total)}><b>{r.valid ? formatBytes(r.total) : '—'}</b></td>
            <td title={formatBytesExact(r.above)}>{r.valid ? formatBytes(r.above) : '—'}</td>
            <td>{r.valid && r.percent !== null ? `${r.percent.toFixed(2)}%` : '—'}</td>
            <td>{r.chunks}</td>
            <td>{r.name === 'ggml' && result.buffer_type !== null ? <span class="hint" title="ggml's own plan of the graph">—</span> : formatMs(r.timeMs)}</td>
            <td>
              <Proof row={r} running={running && r.name === 'exact'} />
              {r.fits !== null ? <span class={r.fits ? 'wi-ok' : 'wi-bad'}>{r.name === 'exact' || !r.checked ? ' · ' : ''}{r.fits ? 'fits' : 'exceeds the capacity'}</span> : null}
              {r.note && r.name !== 'exact' ? <span class="hint"> {r.note}</span> : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Headline({ result }) {
  const s = whatifSummary(result);
  return (
    <div class="wi-headline" data-testid="whatif-headline">
      {s.saved > 0n
        ? <>best: <b>{LABELS[s.best] ?? s.best}</b>, {formatBytes(s.bestTotal)}: <b>{formatBytes(s.saved)}</b> ({s.savedPercent.toFixed(2)}%) less than ggml&apos;s {formatBytes(s.ggml)}</>
        : <>ggml&apos;s plan ({formatBytes(s.ggml)}) is as good as any planner here</>}
      {result.n_shrinking > 0 ? <span class="hint"> · {result.n_shrinking} in-place chain(s) shrink: merged items keep their largest size</span> : null}
    </div>
  );
}

export function WhatIf() {
  if (!whatifOpen.value) {
    return (
      <div class="whatif closed">
        <button onClick={() => setWhatifOpen(true)} data-testid="whatif-toggle">What if…</button>
        <span class="hint"> how far is ggml&apos;s plan from the best possible, and what would do better? (also: MiniMalloc CSV problems)</span>
      </div>
    );
  }
  const g = graph.value;
  const m = model.value;
  const csv = csvProblem.value;
  const w = whatif.value;
  const run = whatifRunning.value;
  const current = w && (csv ? w.kind === 'csv' : w.kind === 'graph' && w.graph === g && w.bufferType === whatifBufferType.value);
  return (
    <div class="whatif" data-testid="whatif">
      <div class="pane-title">
        What if <span class="hint">ggml places each tensor as it comes; knowing the whole graph, offline planners can pack tighter</span>
        <button class="small" onClick={() => setWhatifOpen(false)} data-testid="whatif-close">close</button>
      </div>
      <div class="wi-controls">
        {csv ? (
          <span data-testid="whatif-source">
            CSV problem <b>{csv.name}</b>{csv.capacity !== null ? ` · capacity ${formatBytesExact(csv.capacity)} (from the ${csv.capacityFrom})` : ' · no capacity'}{' '}
            <button class="small" onClick={closeCsv} data-testid="csv-close">back to the graph</button>
          </span>
        ) : (
          <label data-testid="whatif-source">buffer type{' '}
            <select value={whatifBufferType.value} onChange={(e) => setWhatifBuffer(Number(e.target.value))} data-testid="whatif-buffer">
              {(g?.buffer_types ?? []).map((b, k) => {
                const shared = m?.buffers[k]?.sharedWith;
                return <option value={k}>{b.name}{shared !== null && shared !== undefined ? ` (shares ${g.buffer_types[shared]?.name})` : ''}</option>;
              })}
            </select>
          </label>
        )}
        <label>exact search budget{' '}
          <select value={whatifBudget.value} onChange={(e) => setWhatifBudget(Number(e.target.value))} data-testid="whatif-budget">
            {[...new Set([...BUDGETS, whatifBudget.value])].sort((a, b) => a - b).map((ms) => <option value={ms}>{budgetLabel(ms)}</option>)}
          </select>
        </label>
        <Status />
      </div>
      {w ? (
        <div class={current ? '' : 'wi-stale'} data-testid="whatif-numbers" data-current={String(!!current)}>
          {!current ? <div class="hint">{run ? 'updating…' : 'these numbers are of an earlier graph'}</div> : null}
          <Headline result={w.result} />
          <Table result={w.result} running={current && run !== null && run.phase === 'exact'} />
        </div>
      ) : null}
      <WhatIfCsv />
    </div>
  );
}
