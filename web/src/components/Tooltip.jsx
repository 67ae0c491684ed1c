// Tooltip.jsx: what the hovered rectangle is, where it lives, and why: a tensor of the
// graph's own plan, an item of another planner's plan, or a row of a CSV problem.
import { useLayoutEffect, useRef } from 'preact/hooks';
import { hovered, explanation } from '../state.js';
import { layerLabel } from '../core/layer-steps.js';
import { rowHovered } from '../whatif-state.js';
import { tensorFacts } from './tensor-facts.js';
import { tooltipPlace } from '../core/tooltip-place.js';

/** the tooltip's lines for a tensor of ggml's plan */
function ggmlFacts(m, i) {
  const f = tensorFacts(m, i);
  const ex = explanation.value;
  const layer = ex && ex.n_tensors === m.doc.tensors.length ? layerLabel(ex.layer[i], ex.n_layers) : '';
  return { name: f.name, detail: `${f.op} · ${f.type} ${f.shape} · ${f.bytes}`, layer, where: f.where, steps: f.steps, why: f.why };
}

/**
 * @param {{pointer: import('@preact/signals').Signal<{x: number, y: number}|null>, source: object}} props
 *   pointer: in viewport (client) coordinates; source: the timeline source drawn (whatif-state.js timelineSource)
 */
export function Tooltip({ pointer: pointerSignal, source }) {
  const ref = useRef(null);
  const pointer = pointerSignal.value;
  const i = source.tensors ? hovered.value : rowHovered.value;
  const f = pointer && i >= 0 ? (source.kind === 'ggml' ? ggmlFacts(source, i) : source.facts(i)) : null;
  // placed once its size is known, before the browser paints it
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el || !pointer) return;
    const b = el.getBoundingClientRect();
    const at = tooltipPlace(pointer.x, pointer.y, b.width, b.height, document.documentElement.clientWidth, window.innerHeight);
    el.style.left = `${at.left}px`;
    el.style.top = `${at.top}px`;
    el.style.visibility = 'visible';
  });
  if (!f) return null;
  return (
    <div class="tooltip" ref={ref} style={{ left: '0px', top: '0px', visibility: 'hidden' }} data-testid="tooltip">
      <div class="tt-name">{f.name}</div>
      <div>{f.detail}</div>
      {f.layer && <div data-testid="tooltip-layer">{f.layer}</div>}
      {f.where && <div data-testid="tooltip-where">{f.where}</div>}
      {f.steps && <div>{f.steps}</div>}
      <div class="tt-why">{f.why}</div>
    </div>
  );
}
