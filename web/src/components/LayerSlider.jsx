// LayerSlider.jsx: for a model whose tensor names carry a layer index ("attn_norm-12",
// "blk.12.", "cache_k_l12", parsed in C), a slider that zooms the timeline to the steps
// of one layer. Hidden when fewer than two layers are named.
import { useMemo, useState } from 'preact/hooks';
import { explanation, graph, showSteps, timelineRange } from '../state.js';
import { layerSteps } from '../core/layer-steps.js';

export function LayerSlider() {
  const ex = explanation.value;
  const g = graph.value;
  const [layer, setLayer] = useState(null);
  const ranges = useMemo(() => (ex && g && ex.n_tensors === g.tensors.length ? layerSteps(ex.layer, g.nodes, ex.n_layers) : null), [ex, g]);
  if (!ranges || ranges.filter(Boolean).length < 2) return null;
  const n = ranges.length;
  const cur = layer !== null && layer < n ? layer : null;
  const r = cur !== null ? ranges[cur] : null;
  // the slider says which layer only while the timeline still shows it
  const shown = r && timelineRange.value && timelineRange.value.first === r.first && timelineRange.value.last === r.last;
  const go = (l) => {
    setLayer(l);
    const x = ranges[l];
    if (x) showSteps(x.first, x.last);
  };
  return (
    <div class="layers" data-testid="layer-slider">
      <label class="hint" for="layer-range">layer</label>
      <input id="layer-range" type="range" min={0} max={n - 1} value={cur ?? 0} data-testid="layer-range" aria-label="layer"
        onInput={(e) => go(Number(e.target.value))} />
      <span data-testid="layer-info">
        {shown ? <>layer {cur} of {n} · steps {r.first}–{r.last}</> : cur !== null && !r ? `layer ${cur} of ${n}: no node` : <span class="hint">{n} layers: pick one to zoom the timeline to its steps</span>}
      </span>
    </div>
  );
}
