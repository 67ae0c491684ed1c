// DevicesEditor.jsx: the devices llama.cpp runs the model on (kind and memory each, in llama.cpp's
// order), the host's memory, and llama.cpp's placement flags (-ngl, -sm, -mg, -ts, -nkvo,
// --no-op-offload). Reads and changes device-state.js; the breakdown follows every change.
import { useState } from 'preact/hooks';
import { devices, hostMiB, placement, addDevice, removeDevice, setDevice, setHostMiB, setPlacement, setDevices } from '../device-state.js';
import { modelLayers } from '../model-state.js';
import { DEVICE_KINDS, parseDeviceMemory } from '../core/devices.js';

/** a memory field: typed as "24 GiB" / "12000 MiB", taken on Enter or leaving the field */
function MemoryField({ mib, onSet, testid, allowNone = false, title }) {
  const shown = mib ? (mib % 1024 === 0 ? `${mib / 1024} GiB` : `${mib} MiB`) : '';
  const [draft, setDraft] = useState(null);
  const [bad, setBad] = useState('');
  const commit = () => {
    if (draft === null) return;
    try {
      if (allowNone && draft.trim() === '') onSet(0);
      else onSet(parseDeviceMemory(draft));
      setBad('');
      setDraft(null);
    } catch (e) { setBad(e.message); }
  };
  return (
    <span class="mem-field">
      <input data-testid={testid} size="9" value={draft ?? shown} title={bad || title} class={bad ? 'bad' : ''}
        placeholder={allowNone ? 'not checked' : ''} aria-label={title}
        onInput={(e) => setDraft(e.target.value)} onBlur={commit} onKeyDown={(e) => { if (e.key === 'Enter') commit(); if (e.key === 'Escape') { setDraft(null); setBad(''); } }} />
      {bad && <span class="wi-bad" data-testid={`${testid}-error`}> {bad}</span>}
    </span>
  );
}

function Placement() {
  const p = placement.value;
  const n = devices.value.length;
  const [tsDraft, setTsDraft] = useState(null);
  const [tsBad, setTsBad] = useState('');
  const commitTs = () => {
    if (tsDraft === null) return;
    try { setPlacement('ts', tsDraft); setTsBad(''); setTsDraft(null); } catch (e) { setTsBad(e.message); }
  };
  const layers = modelLayers.value;
  return (
    <div class="placement" data-testid="placement">
      <label title="layers on the devices, the output layer counted (all: every layer and the output)">-ngl{' '}
        <input type="number" min="0" max={layers ? layers + 1 : 999} data-testid="set-ngl" value={p.ngl < 0 ? '' : p.ngl} placeholder="all" size="4"
          onChange={(e) => setPlacement('ngl', e.target.value === '' ? -1 : Math.max(0, Math.floor(Number(e.target.value))))} />
        {layers > 0 && <span class="hint"> of {layers + 1}</span>}
      </label>
      <label title="split mode: layers over the devices, or everything on -mg's device">-sm{' '}
        <select data-testid="set-sm" value={p.sm} onChange={(e) => setPlacement('sm', e.target.value)}>
          <option value="layer">layer</option><option value="none">none</option>
        </select>
      </label>
      {p.sm === 'none' && n > 1 && (
        <label title="the device of -sm none">-mg{' '}
          <select data-testid="set-mg" value={String(p.mg)} onChange={(e) => setPlacement('mg', Number(e.target.value))}>
            {devices.value.map((d, i) => <option value={String(i)}>{i}: {d.kind}</option>)}
          </select>
        </label>
      )}
      {p.sm === 'layer' && n > 1 && (
        <label title="proportions of the layers per device, e.g. 3,1 (empty: by the devices' memory)">-ts{' '}
          <input data-testid="set-ts" size="7" value={tsDraft ?? p.ts} placeholder="by memory" class={tsBad ? 'bad' : ''}
            onInput={(e) => setTsDraft(e.target.value)} onBlur={commitTs} onKeyDown={(e) => e.key === 'Enter' && commitTs()} />
          {tsBad && <span class="wi-bad" data-testid="set-ts-error"> {tsBad}</span>}
        </label>
      )}
      <label title="keep the KV cache in host memory (-nkvo)"><input type="checkbox" data-testid="set-nkvo" checked={p.nkvo}
        onChange={(e) => setPlacement('nkvo', e.target.checked)} /> -nkvo</label>
      <label title="offload a CPU-held matrix's op to a GPU for big batches (off: --no-op-offload)"><input type="checkbox" data-testid="set-op-offload" checked={p.opOffload}
        onChange={(e) => setPlacement('opOffload', e.target.checked)} /> op offload</label>
    </div>
  );
}

export function DevicesEditor() {
  const list = devices.value;
  const [kind, setKind] = useState('cuda');
  return (
    <div class="devices" data-testid="devices">
      <div class="devices-head">
        <b>Devices</b>
        <span class="hint">{list.length ? "in llama.cpp's order" : 'none: the CPU alone'}</span>
        <select data-testid="device-kind" value={kind} onChange={(e) => setKind(e.target.value)} aria-label="kind of the device to add">
          {DEVICE_KINDS.map((k) => <option value={k.kind}>{k.label}{k.verified ? ' ✓' : ''}</option>)}
        </select>
        <button class="small" data-testid="device-add" onClick={() => addDevice(kind)} disabled={list.length >= 8}>+ device</button>
        <button class="small" data-testid="devices-two-gpus" title="two CUDA GPUs, 24 GiB and 12 GiB"
          onClick={() => setDevices([{ kind: 'cuda', memoryMiB: 24576 }, { kind: 'cuda', memoryMiB: 12288 }])}>two GPUs</button>
        {list.length > 0 && <button class="small" data-testid="devices-clear" onClick={() => setDevices([])}>CPU only</button>}
      </div>
      {list.length > 0 && (
        <ol class="device-list">
          {list.map((d, i) => (
            <li data-testid={`device-${i}`}>
              <select data-testid={`device-${i}-kind`} value={d.kind} aria-label={`device ${i} kind`}
                onChange={(e) => setDevice(i, { kind: e.target.value })}>
                {DEVICE_KINDS.map((k) => <option value={k.kind}>{k.kind}</option>)}
              </select>
              <MemoryField mib={d.memoryMiB} testid={`device-${i}-memory`} title={`device ${i}'s memory (24 GiB, 12000 MiB)`}
                onSet={(mib) => setDevice(i, { memoryMiB: mib })} />
              <button class="small" data-testid={`device-${i}-remove`} aria-label={`remove device ${i}`} onClick={() => removeDevice(i)}>×</button>
            </li>
          ))}
        </ol>
      )}
      <label class="host-mem">host RAM{' '}
        <MemoryField mib={hostMiB.value} testid="host-memory" allowNone title="the host's memory (empty: not checked)" onSet={setHostMiB} />
      </label>
      {list.length > 0 && <Placement />}
      <p class="hint">✓ verified against real llama.cpp runs (rpc, llvmpipe); the others read from their backends' code.</p>
    </div>
  );
}
