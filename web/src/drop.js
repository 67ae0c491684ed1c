// drop.js: a file dropped anywhere on the page is taken: a GGUF (its first bytes say "GGUF") opens
// as a model (only its header is read), anything else is imported as a graph (JSON, binary or
// text), as the header's Import does. Drops into the graph text editor stay the editor's.
import { importGraph } from './state.js';
import { openGgufFile } from './model-state.js';

/**
 * Take one file: a model or a graph, by its first four bytes.
 * @param {File} file
 * @returns {Promise<boolean>}
 */
export async function openDropped(file) {
  const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
  if (head.length === 4 && String.fromCharCode(...head) === 'GGUF') return openGgufFile(file);
  return importGraph(new Uint8Array(await file.arrayBuffer()), file.name);
}

const hasFiles = (e) => [...(e.dataTransfer?.types ?? [])].includes('Files');

/** listen on the document (once, at start) */
export function takeDrops() {
  document.addEventListener('dragover', (e) => { if (hasFiles(e) && !e.defaultPrevented) e.preventDefault(); });
  document.addEventListener('drop', (e) => {
    if (e.defaultPrevented || !hasFiles(e)) return;
    if (e.target instanceof Element && e.target.closest('.cm-editor')) return;
    e.preventDefault();
    const f = e.dataTransfer.files[0];
    if (f) openDropped(f);
  });
}
