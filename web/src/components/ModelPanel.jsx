// ModelPanel.jsx: the model page's controls: drop or pick a .gguf (only its header is read, in the
// page) or pick a card; llama.cpp's settings and the devices as controls; the compute buffer sweep.
// The answer (the memory breakdown) is MemoryAnswer.jsx, beside it. Reads model-state.js.
import { useEffect, useRef, useState } from 'preact/hooks';
import { galloc } from '../state.js';
import { cards, modelSource, modelShown, settings, modelError, sweep, openGgufFile, openCard, setSetting, runSweep, cancelSweep, loadCards } from '../model-state.js';
import { CACHE_TYPES, CONTEXTS, UBATCHES, commandLine } from '../core/model-settings.js';
import { DevicesEditor } from './DevicesEditor.jsx';
import { openDropped } from '../drop.js';
import { formatBytes } from '../core/format.js';
import { SweepPlot } from './SweepPlot.jsx';

// the hyperparameters worth a line: the architecture's own keys
function hyperparameters(summary) {
  const arch = summary.architecture;
  if (!arch) return [];
  return summary.kv.filter((k) => k.key.startsWith(`${arch}.`) && typeof k.value !== 'object')
    .map((k) => [k.key.slice(arch.length + 1), k.value]);
}

function Source() {
  const fileRef = useRef(null);
  const [over, setOver] = useState(false);
  const onDrop = (e) => {
    e.preventDefault();
    setOver(false);
    const f = e.dataTransfer?.files?.[0];
    if (f) openDropped(f); // a graph dropped here is imported, not refused as a bad GGUF
  };
  const src = modelSource.value;
  return (
    <div class={`model-drop${over ? ' over' : ''}`} data-testid="model-drop"
      onDragOver={(e) => { e.preventDefault(); setOver(true); }} onDragLeave={() => setOver(false)} onDrop={onDrop}>
      <span>Drop a <b>.gguf</b> or a graph anywhere on the page (of a GGUF only the header is read, in this page: the file never leaves your machine), or</span>
      <button onClick={() => fileRef.current.click()} data-testid="gguf-pick">pick a file…</button>
      <input ref={fileRef} type="file" accept=".gguf" hidden data-testid="gguf-input"
        onChange={(e) => { const f = e.target.files[0]; e.target.value = ''; if (f) openGgufFile(f); }} />
      <label>or a card{' '}
        <select data-testid="card" value={src?.kind === 'card' && modelShown.value ? src.cardName : ''} onChange={(e) => e.target.value && openCard(e.target.value)}>
          <option value="">—</option>
          {cards.value.map((c) => <option value={c.name} title={c.description}>{c.name}</option>)}
        </select>
      </label>
    </div>
  );
}

function Summary() {
  const src = modelSource.value;
  if (!src) return null;
  if (src.kind === 'card') {
    return <p class="model-summary" data-testid="model-summary"><b>{src.name}</b> ({src.architecture}, card): {src.description}</p>;
  }
  const s = src.summary;
  const hp = hyperparameters(s);
  return (
    <div class="model-summary" data-testid="model-summary" data-file={src.fileName} data-bytes-read={src.bytesRead}>
      <p>
        <b>{s.name ?? src.fileName}</b> · {s.architecture ?? 'no general.architecture'} · GGUF v{s.version} · {s.n_tensors} tensors
        ({formatBytes(s.data_size)} of weights) · header {formatBytes(s.header_size)}, read {formatBytes(src.bytesRead)} of
        {' '}{formatBytes(src.fileSize)} in <span data-testid="gguf-read-ms">{src.readMs.toFixed(0)}</span> ms
      </p>
      {s.llama_refusal && <p class="wi-bad">llama.cpp would refuse this file: {s.llama_refusal}</p>}
      {hp.length > 0 && (
        <details>
          <summary>hyperparameters ({hp.length})</summary>
          <table class="model-hp" data-testid="model-hp">
            {hp.map(([k, v]) => <tr><td>{k}</td><td>{String(v)}</td></tr>)}
          </table>
        </details>
      )}
    </div>
  );
}

function Select({ label, k, options, title }) {
  const v = settings.value[k];
  return (
    <label title={title}>{label}{' '}
      <select data-testid={`set-${k}`} value={String(v)} onChange={(e) => setSetting(k, e.target.value)}>
        {options.map(([val, text]) => <option value={String(val)}>{text}</option>)}
      </select>
    </label>
  );
}

/**
 * A number llama.cpp takes as typed (-c 40960, -c 0 for the training context): taken on Enter or
 * leaving the field, with suggestions; a value that is not a whole number in range is refused
 * here, one llama.cpp refuses is refused by the module (the error shown, the plan marked).
 */
function NumberSetting({ label, k, title, min, max, list }) {
  const v = settings.value[k];
  const [draft, setDraft] = useState(null);
  const [bad, setBad] = useState('');
  const commit = () => {
    if (draft === null) return;
    const t = draft.trim();
    if (!/^\d+$/.test(t) || Number(t) < min || Number(t) > max) {
      setBad(`${label}: '${draft}' is not a whole number from ${min} to ${max}`);
      return;
    }
    setBad('');
    setDraft(null);
    if (Number(t) !== v) setSetting(k, Number(t));
  };
  return (
    <label title={title}>{label}{' '}
      <input data-testid={`set-${k}`} list={`list-${k}`} size="7" inputMode="numeric" value={draft ?? String(v)} class={bad ? 'bad' : ''}
        aria-label={`${label}: ${title}`} onInput={(e) => setDraft(e.target.value)} onBlur={commit}
        onKeyDown={(e) => { if (e.key === 'Enter') commit(); if (e.key === 'Escape') { setDraft(null); setBad(''); } }} />
      <datalist id={`list-${k}`}>{list.map((c) => <option value={String(c)} />)}</datalist>
      {bad && <span class="wi-bad" data-testid={`set-${k}-error`}> {bad}</span>}
    </label>
  );
}

function Settings() {
  const s = settings.value;
  return (
    <div class="model-settings" data-testid="model-settings">
      <NumberSetting label="-c" k="n_ctx" title="context length in tokens (0: the model's training context)" min={0} max={1 << 24} list={[0, ...CONTEXTS, 40960]} />
      <NumberSetting label="-b" k="n_batch" title="logical batch" min={1} max={1 << 20} list={[...UBATCHES, 4096]} />
      <NumberSetting label="-ub" k="n_ubatch" title="micro-batch: tokens per graph" min={1} max={1 << 20} list={UBATCHES} />
      <Select label="-fa" k="flash_attn" title="flash attention" options={[[0, 'off'], [1, 'on']]} />
      <Select label="-ctk" k="type_k" title="K cache type" options={CACHE_TYPES.map((t) => [t, t])} />
      <Select label="-ctv" k="type_v" title="V cache type" options={CACHE_TYPES.map((t) => [t, t])} />
      <NumberSetting label="-np" k="n_seq" title="parallel sequences" min={1} max={256} list={[1, 2, 4, 8]} />
      <Select label="graph" k="graph" title="the prompt graph of a full micro-batch, or the one-token decode graph" options={[['prompt', 'prompt'], ['decode', 'decode']]} />
      <code class="model-cmd" data-testid="model-cmd">{commandLine(s)}</code>
    </div>
  );
}

function Sweep() {
  const sw = sweep.value;
  const [axis, setAxis] = useState('n_ctx');
  const [withUb, setWithUb] = useState(false);
  const start = () => runSweep({ axis, ubatches: withUb ? [128, 512, 2048] : [settings.value.n_ubatch] });
  return (
    <div class="model-sweep">
      <div class="wi-controls">
        <button data-testid="sweep-run" onClick={start} disabled={sw.status === 'running'}>Sweep</button>
        <label>along{' '}
          <select data-testid="sweep-axis" value={axis} onChange={(e) => setAxis(e.target.value)}>
            <option value="n_ctx">context length (-c {CONTEXTS[0]} … {CONTEXTS[CONTEXTS.length - 1]})</option>
            <option value="n_ubatch">micro-batch (-ub {UBATCHES[0]} … {UBATCHES[UBATCHES.length - 1]}) at -c {settings.value.n_ctx}</option>
          </select>
        </label>
        {axis === 'n_ctx' && <label><input type="checkbox" checked={withUb} onChange={(e) => setWithUb(e.target.checked)} data-testid="sweep-ub" /> at -ub 128, 512, 2048</label>}
        {sw.status === 'running' && <span data-testid="sweep-progress">{sw.done} / {sw.total} <button onClick={cancelSweep}>Stop</button></span>}
        {sw.status === 'failed' && <span class="wi-bad">{sw.error}</span>}
      </div>
      {sw.status === 'done' && <SweepPlot points={sw.points} axis={sw.axis} />}
    </div>
  );
}

export function ModelPanel() {
  const g = galloc.value;
  useEffect(() => { if (g) loadCards(); }, [g]);
  return (
    <section class="model-panel" data-testid="model-panel">
      <div class="pane-title">Model <span class="hint">llama.cpp's own graph, from a GGUF header or a card</span></div>
      <Source />
      {modelError.value && <p class="wi-bad" data-testid="model-error">{modelError.value}</p>}
      {(modelShown.value || modelSource.value?.unsupported) && <Summary />}
      {modelShown.value && <Settings />}
      {modelShown.value && <DevicesEditor />}
      {modelShown.value && <Sweep />}
    </section>
  );
}
