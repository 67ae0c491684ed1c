// text-parse-protocol.js: what the graph-text worker (text-parse-worker.js) sends back, made
// cheap to send. A parsed graph crosses as the JSON text of its document (one string: JSON.parse
// gives the document back, numbers as the parser wrote them, exact) with that text's UTF-8 bytes
// (moved, not copied: the module reads them as they are, nothing encoded on the page), and its
// TextMeta as typed arrays (moved too); a text with errors as its error list. Structured cloning of 300,000 tensor objects would cost the page more than
// the parse it saves.
//
//   worker: self.postMessage(...packParse(id, parseGraphText(text)))
//   page:   const r = unpackParse(event.data); // {id, errors} | {id, json, meta}

/**
 * The message (and its transfer list) for a parse result.
 * @param {number} id
 * @param {{doc: object, meta: import('./graph-text.js').TextMeta} | {errors: Array<{line: number, message: string}>}} r
 * @returns {[object, Transferable[]]}
 */
export function packParse(id, r) {
  if (r.errors) return [{ id, errors: r.errors }, []];
  const m = r.meta;
  const n = m.stmts.length;
  // per statement: codeEnd, bufSpan from, to (-1: none), its arg spans (from, to) and arg slots
  const at = new Int32Array(n + 1);
  let size = 0;
  for (let i = 0; i < n; i++) { at[i] = size; size += 4 + m.stmts[i].argSpans.length * 2 + m.stmts[i].argSlots.length; }
  at[n] = size;
  const data = new Int32Array(size);
  for (let i = 0; i < n; i++) {
    const s = m.stmts[i];
    let k = at[i];
    data[k++] = s.codeEnd;
    data[k++] = s.bufSpan ? s.bufSpan[0] : -1;
    data[k++] = s.bufSpan ? s.bufSpan[1] : -1;
    data[k++] = s.argSpans.length;
    for (const [from, to] of s.argSpans) { data[k++] = from; data[k++] = to; }
    for (const slot of s.argSlots) data[k++] = slot;
  }
  const tensorLines = Int32Array.from(m.tensorLines);
  const meta = { tensorLines, stmtAt: at, stmtData: data, bufferLines: m.bufferLines, typeLines: m.typeLines ?? [] };
  const json = documentJson(r.doc);
  // (the parser refuses lone surrogates: the text, so its JSON, is well formed and encodes exactly)
  const bytes = new TextEncoder().encode(json);
  return [{ id, json, bytes, meta }, [tensorLines.buffer, at.buffer, data.buffer, bytes.buffer]];
}

/** the parser's documents hold numbers and decimal strings (docNum); a BigInt, should one be left, as a decimal string */
function documentJson(doc) {
  try { return JSON.stringify(doc); } catch { /* a BigInt: the slower way (a replacer for every value) */ }
  return JSON.stringify(doc, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
}

/**
 * A worker's message as the parse result the page uses: the document's JSON text and a TextMeta
 * whose stmts are unpacked when first read (an edit from another view; selecting a tensor needs
 * only tensorLines).
 * @param {object} msg
 * @returns {{id: number, errors: Array<{line: number, message: string}>} | {id: number, json: string, bytes: Uint8Array, meta: import('./graph-text.js').TextMeta}}
 */
export function unpackParse(msg) {
  if (msg.errors) return { id: msg.id, errors: msg.errors };
  const { tensorLines, stmtAt, stmtData, bufferLines, typeLines } = msg.meta;
  let stmts = null;
  const unpack = () => {
    const out = new Array(stmtAt.length - 1);
    for (let i = 0; i < out.length; i++) {
      let k = stmtAt[i];
      const end = stmtAt[i + 1];
      const codeEnd = stmtData[k++];
      const b0 = stmtData[k++];
      const b1 = stmtData[k++];
      const nSpans = stmtData[k++];
      const argSpans = [];
      for (let j = 0; j < nSpans; j++, k += 2) argSpans.push([stmtData[k], stmtData[k + 1]]);
      const argSlots = Array.from(stmtData.subarray(k, end));
      out[i] = { argSpans, argSlots, bufSpan: b0 < 0 ? null : [b0, b1], codeEnd };
    }
    return out;
  };
  const meta = {
    tensorLines: Array.from(tensorLines),
    get stmts() { return (stmts ??= unpack()); },
    bufferLines,
    typeLines,
  };
  return { id: msg.id, json: msg.json, bytes: msg.bytes, meta };
}
