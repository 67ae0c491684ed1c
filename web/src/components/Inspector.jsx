// Inspector.jsx: the selected tensor: facts, placement and why, and edits
// (buffer assignment, sources, consumers, add and remove).
import { useState } from 'preact/hooks';
import { model, graph, selected, select, assignBuffer, startPick, rewireByRef, addTensor, removeTensor, picking } from '../state.js';
import { tensorFacts } from './tensor-facts.js';
import { dependents } from '../core/text-edits.js';
import { formatBytesExact } from '../core/format.js';

const CONSUMER_OPS = ['add', 'mul', 'sub', 'div', 'mul_mat', 'scale', 'cont', 'rms_norm', 'norm', 'silu', 'gelu', 'relu', 'soft_max', 'transpose', 'sum_rows', 'mean', 'argmax', 'sqr'];
const BINARY = new Set(['add', 'mul', 'sub', 'div', 'mul_mat']);

function Link({ i }) {
  const g = graph.value;
  return <a href="#" onClick={(e) => { e.preventDefault(); select(i); }}>{g.tensors[i]?.name || `#${i}`}</a>;
}

function SourceRow({ i, slot, s }) {
  const [draft, setDraft] = useState('');
  return (
    <li>
      <span class="hint">src[{slot}]</span> {s === null ? <i>empty</i> : <Link i={s} />}{' '}
      <button class="small" onClick={() => startPick(i, slot)} title="click a tensor in the graph or timeline">pick…</button>{' '}
      <input type="text" size={10} placeholder="name or $N" value={draft} aria-label={`new source ${slot}`}
        onInput={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => { if (e.key === 'Enter' && draft.trim()) { rewireByRef(i, slot, draft.trim()); setDraft(''); } }} />
    </li>
  );
}

export function Inspector() {
  const m = model.value;
  const g = graph.value;
  const i = selected.value;
  const [op, setOp] = useState('add');
  const [other, setOther] = useState('');
  if (!m || !g) return null;
  if (i < 0 || i >= g.tensors.length) {
    return <div class="inspector hint">Select a tensor (timeline, graph or text) to see where it lives and why, and to edit it.</div>;
  }
  const t = g.tensors[i];
  const f = tensorFacts(m, i);
  const assigned = m.index.assigned[i];
  const deps = dependents(g, i);
  const consumers = m.index.consumers[i];
  const addConsumer = () => {
    const srcs = [i];
    if (BINARY.has(op)) {
      const ref = other.trim();
      let j = i;
      if (ref) {
        j = /^\$\d+$/.test(ref) ? Number(ref.slice(1)) : g.tensors.findLastIndex((x) => x.name === ref);
        if (j < 0 || j >= g.tensors.length) return;
      }
      if (op === 'mul_mat') srcs.unshift(j); else srcs.push(j);
    }
    addTensor(op, srcs);
  };
  return (
    <div class="inspector" data-testid="inspector">
      <div class="insp-head">
        <b class="tt-name">{f.name}</b> <span class="hint">#{i}</span> · {f.op} · {f.type} {f.shape} · {f.bytes}
        <span class="hint"> ({formatBytesExact(m.info.bytes[i])}{t.nb ? `, strides [${t.nb.join(', ')}]` : ''})</span>
        {(t.flags || []).filter((x) => x !== 'compute').map((x) => <span class="flag">{x}</span>)}
      </div>
      {f.where && <div>{f.where}</div>}
      {f.steps && <div>{f.steps}</div>}
      <div class="tt-why">why: {f.why}</div>
      <div class="insp-grid">
        <div>
          {assigned >= 0 && (
            <label>assigned to{' '}
              <select value={assigned} onChange={(e) => assignBuffer(i, Number(e.target.value))} data-testid="assign-buffer">
                {g.buffer_types.map((b, k) => <option value={k}>{b.name}</option>)}
              </select>
            </label>
          )}
          {(t.src || []).length > 0 && (
            <ul class="srcs">{t.src.map((s, k) => <SourceRow i={i} slot={k} s={s ?? null} />)}</ul>
          )}
          {picking.value && <div class="picking">picking a source…</div>}
        </div>
        <div>
          <div>consumers: {consumers.length ? consumers.slice(0, 12).map((c) => <><Link i={c} /> </>) : <i>none</i>}{consumers.length > 12 ? ` … +${consumers.length - 12}` : ''}</div>
          <div class="insp-actions">
            <select value={op} onChange={(e) => setOp(e.target.value)} aria-label="op of the new consumer">
              {CONSUMER_OPS.map((o) => <option value={o}>{o}</option>)}
            </select>
            {BINARY.has(op) && <input type="text" size={10} placeholder={`other (${f.name})`} value={other} onInput={(e) => setOther(e.target.value)} aria-label="other operand" />}
            <button class="small" onClick={addConsumer}>+ consumer</button>
            <button class="small danger" onClick={() => removeTensor(i, false)} disabled={deps.length > 1} title={deps.length > 1 ? 'used by other tensors' : ''}>remove</button>
            {deps.length > 1 && <button class="small danger" onClick={() => removeTensor(i, true)}>remove with {deps.length - 1} dependent{deps.length > 2 ? 's' : ''}</button>}
          </div>
        </div>
      </div>
    </div>
  );
}
