// io.js: files out of the page (downloads) and the timeline's export hook.
//
// The timeline registers how to export itself (it knows its layout and
// zoom); the header asks for SVG or PNG through exportTimeline.

let exporter = null;

/** @param {{svg: () => string, png: () => Promise<Blob>}|null} e */
export function registerTimelineExporter(e) { exporter = e; }

/**
 * Save text or a Blob as a file.
 * @param {string} name
 * @param {string|Blob} data
 * @param {string} [type]
 */
export function download(name, data, type = 'application/octet-stream') {
  const blob = data instanceof Blob ? data : new Blob([data], { type });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/**
 * @param {'svg'|'png'} what
 * @param {string} base file name without extension
 */
export async function exportTimeline(what, base) {
  if (!exporter) return;
  if (what === 'svg') download(`${base}.timeline.svg`, exporter.svg(), 'image/svg+xml');
  else download(`${base}.timeline.png`, await exporter.png());
}
