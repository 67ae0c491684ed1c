// App.jsx: the page layout: header, banner, editor and graph on the left;
// numbers, the What-if panel, step controls, timeline and inspector on the right.
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
import { PeakPanel } from './PeakPanel.jsx';
import { MemoryChart } from './MemoryChart.jsx';
import { CompareView } from './CompareView.jsx';
import { status } from '../state.js';

export function App() {
  return (
    <div class="app">
      <Header />
      <Banner />
      {status.value === 'loading' && <div class="loading">loading the allocator module…</div>}
      <main class="panes">
        <section class="left">
          <Editor />
          <DagView />
          <ModelPanel />
          <PeakPanel />
          <MemoryChart />
          <CompareView />
        </section>
        <section class="right">
          <BufferTable />
          <WhatIf />
          <StepControls />
          <LayerSlider />
          <Timeline />
          <Inspector />
        </section>
      </main>
    </div>
  );
}
