// PresetPair.jsx: two presets that teach one thing together, side by side under the lesson:
// realloc_a and realloc_b (the reallocation test's two graphs planned by one allocator): each
// one's chunks as bars on one byte scale, so chunk 1 growing from 16 to 20 bytes is seen, and a
// button that opens "Compare two plans" with the other one as B.
import { galloc } from '../state.js';
import { compareWithPreset, setCompareOpen } from '../explain-state.js';
import { formatBytes, formatBytesExact } from '../core/format.js';

/** presets shown with their partner, in the order drawn */
export const PAIRS = { realloc_a: ['realloc_a', 'realloc_b'], realloc_b: ['realloc_a', 'realloc_b'] };
/** px per byte of the bars (the pair's chunks are tens of bytes) */
const PX = 6;

export function PresetPair({ name }) {
  const g = galloc.value;
  const pair = PAIRS[name];
  if (!g || !pair) return null;
  let rows;
  try {
    rows = pair.map((n) => ({ name: n, chunks: g.plan(g.preset(n)).buffers[0].chunk_sizes.map(Number) }));
  } catch { return null; }
  const other = pair.find((n) => n !== name);
  return (
    <div class="preset-pair" data-testid="preset-pair">
      {rows.map((r) => (
        <div class={`pair-row${r.name === name ? ' current' : ''}`} data-testid={`pair-${r.name}`} data-chunks={r.chunks.join(',')}>
          <span class="pair-name">{r.name}</span>
          {r.chunks.map((c, k) => (
            <span class="pair-chunk" style={{ width: `${c * PX}px` }} title={`chunk ${k}: ${formatBytesExact(c)}`}>chunk {k} · {formatBytes(c)}</span>
          ))}
        </div>
      ))}
      <button class="small" data-testid="pair-compare" onClick={() => { setCompareOpen(true); compareWithPreset(other); }}>compare with {other}</button>
    </div>
  );
}
