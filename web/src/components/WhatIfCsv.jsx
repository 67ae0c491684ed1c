// WhatIfCsv.jsx: importing a MiniMalloc CSV problem (id,lower,upper,size) into the What-if
// panel, from a file or pasted, with an optional capacity (else the file name's).
import { useRef, useState } from 'preact/hooks';
import { importCsv } from '../whatif-state.js';

export function WhatIfCsv() {
  const fileRef = useRef(null);
  const pasteRef = useRef(null);
  const [capacity, setCapacity] = useState('');
  const [paste, setPaste] = useState(false);
  const onFile = async (e) => {
    const f = e.target.files[0];
    e.target.value = '';
    if (f) importCsv(await f.text(), { name: f.name, capacity });
  };
  const onPaste = async () => {
    if (await importCsv(pasteRef.current.value, { name: 'pasted CSV', capacity })) setPaste(false);
  };
  return (
    <div class="wi-csv">
      <span class="hint">CSV problem (id,lower,upper,size; rows live over [lower, upper)):</span>
      <button class="small" onClick={() => fileRef.current.click()} data-testid="csv-import">Import CSV…</button>
      <input ref={fileRef} type="file" accept=".csv,text/csv,text/plain" hidden onChange={onFile} data-testid="csv-file-input" />
      <button class="small" onClick={() => setPaste(!paste)} data-testid="csv-paste">Paste CSV…</button>
      <label class="hint">capacity{' '}
        <input type="text" size={12} value={capacity} placeholder="from file name" onInput={(e) => setCapacity(e.target.value)}
          data-testid="csv-capacity" aria-label="capacity of the CSV problem" />
      </label>
      {paste && (
        <div class="wi-paste">
          <textarea ref={pasteRef} rows={6} placeholder={'id,lower,upper,size\n0,0,3,100\n1,1,4,50'} data-testid="csv-paste-text" />
          <div>
            <button class="small" onClick={onPaste} data-testid="csv-paste-import">Import</button>
            <button class="small" onClick={() => setPaste(false)}>Cancel</button>
          </div>
        </div>
      )}
    </div>
  );
}
