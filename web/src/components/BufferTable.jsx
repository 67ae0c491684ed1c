// BufferTable.jsx: buffer types with their limits (editable) and the plan's numbers.
import { useState } from 'preact/hooks';
import { model, graph, planMs, setMaxSize, setAlignment, renameBuffer, addBufferType, removeBufferType, setNotice } from '../state.js';
import { formatBytes, formatBytesExact, formatPercent, parseSize } from '../core/format.js';

const UNITS = [['B', 1n], ['KiB', 1n << 10n], ['MiB', 1n << 20n], ['GiB', 1n << 30n]];
const ALIGNS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 4096];

function splitSize(v) {
  if (v === null || v === undefined) return ['', 'none'];
  const b = BigInt(v);
  for (let k = UNITS.length - 1; k >= 0; k--) {
    const [u, m] = UNITS[k];
    if (b % m === 0n && b >= m) return [String(b / m), u];
  }
  return [String(b), 'B'];
}

function MaxSizeInput({ b, value }) {
  const [num0, unit0] = splitSize(value);
  const [draft, setDraft] = useState(null);
  const num = draft ?? num0;
  const apply = (n, unit) => {
    setDraft(null);
    if (unit === 'none') { setMaxSize(b, null); return; }
    try {
      const bytes = parseSize(`${n || '0'} ${unit}`);
      if (bytes === null || bytes === 0n) throw new Error('the max size must be more than 0 bytes');
      setMaxSize(b, bytes);
    } catch (e) { setNotice(e.message, 'error'); }
  };
  return (
    <span class="maxsize">
      <input type="text" inputMode="decimal" size={7} value={unit0 === 'none' ? '' : num} title="type a size; the unit is on the right (none: no limit)"
        data-testid={`max-size-${b}`} aria-label="max size"
        onInput={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => e.key === 'Enter' && apply(e.target.value, unit0 === 'none' ? 'B' : unit0)}
        onBlur={(e) => draft !== null && apply(e.target.value, unit0 === 'none' ? 'B' : unit0)} />
      <select value={unit0} data-testid={`max-unit-${b}`} aria-label="max size unit"
        onChange={(e) => apply(num || '1', e.target.value)}>
        <option value="none">none</option>
        {UNITS.map(([u]) => <option value={u}>{u}</option>)}
      </select>
    </span>
  );
}

function NameInput({ b, name }) {
  const [draft, setDraft] = useState(null);
  const apply = (v) => { setDraft(null); if (v !== name) renameBuffer(b, v); };
  return (
    <input class="bname" type="text" value={draft ?? name} size={8} aria-label="buffer type name"
      onInput={(e) => setDraft(e.target.value)}
      onKeyDown={(e) => e.key === 'Enter' && apply(e.target.value)}
      onBlur={(e) => draft !== null && apply(e.target.value)} />
  );
}

export function BufferTable() {
  const m = model.value;
  const g = graph.value;
  if (!m || !g) return <div class="numbers" />;
  const peakSum = m.buffers.reduce((a, b) => a + b.peakLive, 0);
  return (
    <div class="numbers">
      <table data-testid="buffer-table">
        <thead>
          <tr>
            <th>buffer type</th><th>align</th><th>max size</th><th>chunks</th><th>chunk sizes</th>
            <th>total</th><th title="largest sum of bytes live at one step: no plan can need less">peak live</th>
            <th title="total minus peak live">overhead</th><th>in place</th><th>views</th><th />
          </tr>
        </thead>
        <tbody>
          {m.buffers.map((b) => (
            <tr data-testid={`buffer-row-${b.index}`}>
              <td><NameInput b={b.index} name={b.name} />{b.sharedWith !== null ? <span class="hint"> shares {m.buffers[b.sharedWith]?.name}</span> : null}</td>
              <td>
                <select value={b.alignment} aria-label="alignment" onChange={(e) => setAlignment(b.index, Number(e.target.value))}>
                  {[...new Set([...ALIGNS, b.alignment])].sort((x, y) => x - y).map((a) => <option value={a}>{a}</option>)}
                </select>
              </td>
              <td><MaxSizeInput b={b.index} value={g.buffer_types[b.index].max_size} /></td>
              <td data-testid={`chunks-${b.index}`}>{b.chunkSizes.length}</td>
              <td class="chunks" title={b.chunkSizes.map((c) => formatBytesExact(c)).join(' + ')}>
                {b.chunkSizes.length ? b.chunkSizes.map(formatBytes).join(' + ') : '—'}
              </td>
              <td data-testid={`total-${b.index}`} data-bytes={String(b.size)} title={formatBytesExact(b.size)}><b>{formatBytes(b.size)}</b></td>
              <td title={formatBytesExact(b.peakLive)}>{formatBytes(b.peakLive)}</td>
              {b.overhead === null
                ? <td title="the plan does not say">—</td>
                : <td title={formatBytesExact(b.overhead)}>{formatBytes(b.overhead)} <span class="hint">{formatPercent(b.overhead, b.peakLive)}</span></td>}
              <td>{b.nInplace}</td>
              <td>{b.nViews}</td>
              <td>{m.buffers.length > 1 && <button class="small" title="remove this buffer type" onClick={() => removeBufferType(b.index)}>✕</button>}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <td colSpan={5}>
              <button class="small" onClick={addBufferType} data-testid="add-buffer">+ buffer type</button>
              <span class="hint"> {g.tensors.length.toLocaleString()} tensors · {g.nodes.length.toLocaleString()} nodes · planned in {planMs.value.toFixed(1)} ms</span>
            </td>
            <td data-testid="total-all" data-bytes={String(m.total)}><b>{formatBytes(m.total)}</b></td>
            <td>{formatBytes(peakSum)}</td>
            <td>{formatBytes(m.total - peakSum)} <span class="hint">{formatPercent(m.total - peakSum, peakSum)}</span></td>
            <td data-testid="inplace-all">{m.nInplace}</td>
            <td colSpan={2} />
          </tr>
        </tfoot>
      </table>
    </div>
  );
}
