// App.jsx: the page layout. Header and banner; then, for a model, the answer first: its controls
// (settings, devices) beside llama.cpp's memory breakdown; then the graph text and graph view on
// the left, the buffer table, step controls, timeline, why the buffer is this big and the
// inspector on the right; the memory chart and the comparison under the graph.
import { Header } from './Header.jsx';
import { Banner } from './Banner.jsx';
import { Editor } from './Editor.jsx';
import { DagView } from './DagView.jsx';
import { BufferTable } from './BufferTable.jsx';
import { StepControls } from './StepControls.jsx';
import { LayerSlider } from './LayerSlider.jsx';
import { Timeline } from './Timeline.jsx';
import { Inspector } from './Inspector.jsx';
import { WhatIf } from './WhatIf.jsx';
import { ModelPanel } from './ModelPanel.jsx';
import { MemoryAnswer } from './MemoryAnswer.jsx';
import { PeakPanel } from './PeakPanel.jsx';
import { MemoryChart } from './MemoryChart.jsx';
import { CompareView } from './CompareView.jsx';
import { PlanStale, planIsStale } from './PlanStale.jsx';
import { status } from '../state.js';
import { modelShown } from '../model-state.js';

export function App() {
  const withModel = modelShown.value;
  return (
    <div class="app">
      <Header />
      <Banner />
      {status.value === 'loading' && <div class="loading">loading the allocator module…</div>}
      <section class={`top${withModel ? ' with-model' : ''}`}>
        <ModelPanel />
        {withModel && <MemoryAnswer />}
      </section>
      <PlanStale />
      <main class={`panes${planIsStale.value ? ' stale' : ''}`}>
        <section class="left">
          <Editor />
          <DagView />
          <MemoryChart />
          <CompareView />
        </section>
        <section class="right">
          <BufferTable />
          <WhatIf />
          <StepControls />
          <LayerSlider />
          <Timeline />
          <PeakPanel />
          <Inspector />
        </section>
      </main>
    </div>
  );
}
