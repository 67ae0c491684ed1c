// StepControls.jsx: step slider, play/pause, and what happens at the current step.
import { model, step, playing, stepInfo, setStep, stepBy, play, pause, select, showViews, setShowViews } from '../state.js';
import { formatBytes } from '../core/format.js';
import { opDesc } from '../core/op-rules.js';

function names(m, list, max = 6) {
  const n = list.map((i) => m.doc.tensors[i].name);
  return n.length > max ? `${n.slice(0, max).join(', ')} … (+${n.length - max})` : n.join(', ') || '—';
}

export function StepControls() {
  const m = model.value;
  if (!m) return null;
  const s = step.value;
  const info = stepInfo.value;
  const node = s !== null && s >= 0 ? m.doc.nodes[s] : -1;
  return (
    <div class="steps">
      <button onClick={() => (playing.value ? pause() : play())} data-testid="play" title="play the steps" aria-label={playing.value ? 'pause' : 'play the steps'}>{playing.value ? '⏸' : '▶'}</button>
      <button onClick={() => stepBy(-1)} title="previous step" aria-label="previous step" data-testid="step-prev">◀</button>
      <button onClick={() => stepBy(1)} title="next step" aria-label="next step" data-testid="step-next">▶|</button>
      <input type="range" min={-1} max={m.steps - 1} value={s ?? -1} data-testid="step-slider" aria-label="step"
        onInput={(e) => setStep(Number(e.target.value))} />
      <button class={s === null ? 'on' : ''} onClick={() => { pause(); setStep(null); }} title="show every step" data-testid="step-all">all</button>
      <label class="hint"><input type="checkbox" data-testid="show-views" checked={showViews.value} onChange={(e) => setShowViews(e.target.checked)} /> views</label>
      <div class="stepinfo" data-testid="step-info">
        {info ? (
          <>
            <b>step {s}</b>{node >= 0 ? <> · <a href="#" onClick={(e) => { e.preventDefault(); select(node); }}>{m.doc.tensors[node].name}</a> ({opDesc(m.doc.tensors[node])})</> : ' · before the first node (leafs and inputs)'}
            {' · live '}{info.live.length} tensors, {info.liveBytes.map((b, k) => `${m.buffers[k].name} ${formatBytes(b)}`).join(', ')}
            {' · '}<span class="placed">placed: {names(m, info.placed)}</span>
            {' · '}<span class="freed">freed: {names(m, info.freed)}</span>
            {' · free gaps: '}{info.gaps.length} ({formatBytes(info.gaps.reduce((a, g) => a + g.size, 0))})
          </>
        ) : (
          <span class="hint">{m.steps} step{m.steps === 1 ? '' : 's'} · drag the slider or press ▶ to watch memory being handed out and freed · wheel: zoom time, shift+wheel: zoom bytes, drag: pan</span>
        )}
      </div>
    </div>
  );
}
