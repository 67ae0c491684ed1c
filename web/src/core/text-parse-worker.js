// text-parse-worker.js: a Web Worker that parses graph text (graph-text.js), so that the
// 300,000 lines of a big share link never block the page. See text-parse-client.js.
import { parseGraphText } from './graph-text.js';
import { packParse } from './text-parse-protocol.js';

self.onmessage = (event) => {
  const { id, text } = event.data;
  let message;
  let transfer = [];
  try {
    [message, transfer] = packParse(id, parseGraphText(text));
  } catch (e) {
    message = { id, fault: e instanceof Error ? e.message : String(e) }; // a bug in the parser, said as such
  }
  self.postMessage(message, transfer);
};
