// main.jsx: mounts the visualizer and loads the WASM module and first graph.
import { render } from 'preact';
import { App } from './components/App.jsx';
import { start } from './state.js';
import { restoreAtStart, followState } from './url-state.js';
import { takeDrops } from './drop.js';
import './style.css';

render(<App />, document.getElementById('app'));
takeDrops();
start({ restore: restoreAtStart }).then(followState);
