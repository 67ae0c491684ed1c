// Tooltip.jsx: what the hovered rectangle is, where it lives, and why: a tensor of the
// graph's own plan, an item of another planner's plan, or a row of a CSV problem.
import { hovered } from '../state.js';
import { rowHovered } from '../whatif-state.js';
import { tensorFacts } from './tensor-facts.js';

/** the tooltip's lines for a tensor of ggml's plan */
function ggmlFacts(m, i) {
  const f = tensorFacts(m, i);
  return { name: f.name, detail: `${f.op} · ${f.type} ${f.shape} · ${f.bytes}`, where: f.where, steps: f.steps, why: f.why };
}

/**
 * @param {{pointer: import('@preact/signals').Signal<{x: number, y: number}|null>, width: number, source: object}} props
 *   source: the timeline source drawn (whatif-state.js timelineSource)
 */
export function Tooltip({ pointer: pointerSignal, width, source }) {
  const pointer = pointerSignal.value;
  const i = source.tensors ? hovered.value : rowHovered.value;
  if (!pointer || i < 0) return null;
  const f = source.kind === 'ggml' ? ggmlFacts(source, i) : source.facts(i);
  if (!f) return null;
  const left = pointer.x + 16 + 320 > width ? Math.max(0, pointer.x - 336) : pointer.x + 16;
  return (
    <div class="tooltip" style={{ left: `${left}px`, top: `${pointer.y + 14}px` }} data-testid="tooltip">
      <div class="tt-name">{f.name}</div>
      <div>{f.detail}</div>
      {f.where && <div data-testid="tooltip-where">{f.where}</div>}
      {f.steps && <div>{f.steps}</div>}
      <div class="tt-why">{f.why}</div>
    </div>
  );
}
