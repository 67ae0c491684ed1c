// TensorSearch.jsx: a box that finds a tensor by name and selects it everywhere
// (text, graph view, timeline, inspector). Enter takes the first match; the list
// below the box (arrows, click) the others.
import { useMemo, useState } from 'preact/hooks';
import { graph, select } from '../state.js';
import { findTensors } from '../core/tensor-search.js';

export function TensorSearch() {
  const g = graph.value;
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const [open, setOpen] = useState(false);
  const names = useMemo(() => (g ? g.tensors.map((t) => t.name) : []), [g]);
  const found = useMemo(() => findTensors(names, query), [names, query]);
  if (!g) return null;
  const pick = (i) => { select(i); setOpen(false); };
  const onKey = (e) => {
    if (e.key === 'ArrowDown') { e.preventDefault(); setActive(Math.min(active + 1, found.matches.length - 1)); setOpen(true); }
    if (e.key === 'ArrowUp') { e.preventDefault(); setActive(Math.max(active - 1, 0)); }
    if (e.key === 'Enter' && found.matches.length) pick(found.matches[Math.min(active, found.matches.length - 1)]);
    if (e.key === 'Escape') setOpen(false);
  };
  return (
    <span class="tensor-search">
      <input type="search" value={query} placeholder="find a tensor by name" aria-label="find a tensor by name" data-testid="tensor-search"
        onInput={(e) => { setQuery(e.target.value); setActive(0); setOpen(true); }} onKeyDown={onKey}
        onFocus={() => setOpen(true)} onBlur={() => setTimeout(() => setOpen(false), 150)} />
      {open && query.trim() && (
        <ul class="search-results" data-testid="search-results" role="listbox">
          {found.matches.map((i, k) => (
            <li role="option" aria-selected={k === active} class={k === active ? 'active' : ''} data-t={i}
              onMouseDown={(e) => { e.preventDefault(); pick(i); }}>
              {g.tensors[i].name}<span class="hint"> {g.tensors[i].op === 'NONE' ? '' : g.tensors[i].op.toLowerCase()}</span>
            </li>
          ))}
          <li class="hint" data-testid="search-count">
            {found.total === 0 ? 'no tensor has this in its name' : found.total > found.matches.length ? `${found.matches.length} of ${found.total.toLocaleString()} shown` : `${found.total} found`}
          </li>
        </ul>
      )}
    </span>
  );
}
