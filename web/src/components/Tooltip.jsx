// Tooltip.jsx: what the hovered tensor is, where it lives, and why.
import { hovered, model } from '../state.js';
import { tensorFacts } from './tensor-facts.js';

/** @param {{pointer: import('@preact/signals').Signal<{x: number, y: number}|null>, width: number}} props */
export function Tooltip({ pointer: pointerSignal, width }) {
  const pointer = pointerSignal.value;
  const i = hovered.value;
  const m = model.value;
  if (!pointer || i < 0 || !m) return null;
  const f = tensorFacts(m, i);
  const left = pointer.x + 16 + 320 > width ? Math.max(0, pointer.x - 336) : pointer.x + 16;
  return (
    <div class="tooltip" style={{ left: `${left}px`, top: `${pointer.y + 14}px` }} data-testid="tooltip">
      <div class="tt-name">{f.name}</div>
      <div>{f.op} · {f.type} {f.shape} · {f.bytes}</div>
      {f.where && <div data-testid="tooltip-where">{f.where}</div>}
      {f.steps && <div>{f.steps}</div>}
      <div class="tt-why">{f.why}</div>
    </div>
  );
}
