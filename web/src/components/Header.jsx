// Header.jsx: presets, import (file or paste), export, share.
import { useRef, useState } from 'preact/hooks';
import { presets, presetName, loadPreset, importGraph, graph, plan, planned, text, shareFragment, setNotice, galloc, flushText } from '../state.js';
import { download, exportTimeline } from './io.js';
import { cards, modelSource, openCard } from '../model-state.js';
import { TensorSearch } from './TensorSearch.jsx';
import { PresetPair } from './PresetPair.jsx';

export function Header() {
  const fileRef = useRef(null);
  const [paste, setPaste] = useState(false);
  const list = presets.value;
  const cur = list.find((p) => p.name === presetName.value);
  // model cards first (each opens the model page with its settings), then the library's presets
  const scenario = (p) => /^(test_|realloc)/.test(p.name);
  const teaching = (p) => /^llama-tiny/.test(p.name);
  const synthetic = (p) => /^llama-\d+b-/.test(p.name); // llama-like graphs kept as golden twins, not llama.cpp's
  const groups = [
    ['Conformance scenarios', list.filter(scenario)],
    ["llama.cpp's graphs at fixed settings", list.filter((p) => !scenario(p) && !teaching(p) && !synthetic(p))],
    ['Teaching graphs (tiny llama-style decoders)', list.filter(teaching)],
    ["Synthetic llama-like (golden twins, not llama.cpp's)", list.filter(synthetic)],
  ].filter(([, l]) => l.length);
  const cardValue = presetName.value === null && modelSource.value?.kind === 'card' ? `card:${modelSource.value.cardName}` : null;
  const onPreset = (v) => {
    if (v.startsWith('card:')) openCard(v.slice(5));
    else if (v) loadPreset(v);
  };
  const onFile = async (e) => {
    const f = e.target.files[0];
    e.target.value = '';
    if (!f) return;
    importGraph(new Uint8Array(await f.arrayBuffer()), f.name); // the bytes: the reader's line and column are the file's
  };
  const base = (graph.value?.name || 'graph').replace(/[^A-Za-z0-9_.-]+/g, '_');
  const onExport = (e) => {
    const what = e.target.value;
    e.target.value = '';
    if (!graph.value) return;
    // the documents as the module's JSON writers write them: the CLI's bytes (the graph and plan on
    // screen crossed from the module as binary, galloc-binary.js)
    const d = planned.value;
    // (no document in the module, or the module stopped: the objects on screen, as JSON)
    const json = (textOf, value) => { try { return textOf(); } catch { return `${JSON.stringify(value, null, 1)}\n`; } };
    if (what === 'graph') download(`${base}.graph.json`, json(() => d.graphText(), graph.value), 'application/json');
    if (what === 'text') { flushText(); download(`${base}.galloc.txt`, text.value, 'text/plain'); }
    if (what === 'plan') download(`${base}.plan.json`, json(() => d.planText(), plan.value), 'application/json');
    if (what === 'svg' || what === 'png') exportTimeline(what, base);
  };
  const onShare = async () => {
    const frag = shareFragment();
    const url = `${location.origin}${location.pathname}#${frag}`;
    history.replaceState(null, '', `#${frag}`);
    try { await navigator.clipboard.writeText(url); setNotice(`link copied (${url.length.toLocaleString()} characters)`); } catch {
      setNotice(`link in the address bar (${url.length.toLocaleString()} characters)`);
    }
  };
  return (
    <header class="header">
      <h1>galloc <span class="sub">ggml graph allocator, visualized{galloc.value ? ` · v${galloc.value.version()}` : ''}</span></h1>
      <label class="preset">
        preset{' '}
        <select data-testid="preset" value={cardValue ?? presetName.value ?? ''} onChange={(e) => onPreset(e.target.value)}>
          <option value="">{presetName.value || cardValue ? '—' : '(imported graph)'}</option>
          {cards.value.length > 0 && (
            <optgroup label="Model cards (llama.cpp's graphs)">
              {cards.value.map((c) => <option value={`card:${c.name}`}>{c.name}</option>)}
            </optgroup>
          )}
          {groups.map(([label, l]) => (
            <optgroup label={label}>
              {l.map((p) => <option value={p.name}>{p.name}</option>)}
            </optgroup>
          ))}
        </select>
      </label>
      <button onClick={() => fileRef.current.click()} data-testid="import-file">Import file…</button>
      <input ref={fileRef} type="file" accept=".json,.txt,application/json,text/plain" hidden onChange={onFile} data-testid="file-input" />
      <button onClick={() => setPaste(!paste)}>Paste…</button>
      <select class="export" onChange={onExport} data-testid="export" value="">
        <option value="">Export…</option>
        <option value="graph">graph document (JSON)</option>
        <option value="text">graph text</option>
        <option value="plan">plan document (JSON)</option>
        <option value="svg">timeline (SVG)</option>
        <option value="png">timeline (PNG)</option>
      </select>
      <button onClick={onShare} data-testid="share">Share link</button>
      <TensorSearch />
      {cur && (
        <p class="lesson" data-testid="lesson">
          <b>{cur.name}</b>: <span data-testid="lesson-text" title={cur.lesson && cur.description ? `library: ${cur.description}` : undefined}>{cur.lesson || cur.description}</span>
        </p>
      )}
      {cur && <PresetPair name={cur.name} />}
      {paste && <PasteBox onDone={() => setPaste(false)} />}
    </header>
  );
}

function PasteBox({ onDone }) {
  const ref = useRef(null);
  return (
    <div class="paste">
      <textarea ref={ref} rows={8} placeholder="paste a graph document (JSON) or graph text" data-testid="paste-text" />
      <div>
        <button data-testid="paste-import" onClick={() => { Promise.resolve(importGraph(ref.current.value, 'the pasted graph')).then((ok) => { if (ok) onDone(); }); }}>Import</button>
        <button onClick={onDone}>Cancel</button>
      </div>
    </div>
  );
}
