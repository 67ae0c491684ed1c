// share.js: the graph and its limits in a URL fragment, compressed.
//
// A preset with changed buffer types travels as the preset's name plus its
// @buffer lines (a short link); anything else as the whole graph text.
// lz-string's URI-safe encoding keeps the fragment free of escapes.

import { compressToEncodedURIComponent, decompressFromEncodedURIComponent } from 'lz-string';

const BUFFER_LINE = /^\s*@buffer\b/;

/**
 * The text without its @buffer lines.
 * @param {string} text
 * @returns {string}
 */
export function stripBufferLines(text) {
  return text.split('\n').filter((l) => !BUFFER_LINE.test(l)).join('\n');
}

/**
 * The @buffer lines of a text.
 * @param {string} text
 * @returns {string[]}
 */
export function bufferLines(text) {
  return text.split('\n').filter((l) => BUFFER_LINE.test(l));
}

/**
 * Replace a text's @buffer lines with others (at the place of the first one,
 * else after a leading @name line, else at the top).
 * @param {string} text
 * @param {string[]} lines
 * @returns {string}
 */
export function withBufferLines(text, lines) {
  const all = text.split('\n');
  let at = all.findIndex((l) => BUFFER_LINE.test(l));
  if (at < 0) at = /^\s*@name\b/.test(all[0] ?? '') ? 1 : 0;
  const rest = all.filter((l) => !BUFFER_LINE.test(l));
  rest.splice(at, 0, ...lines);
  return rest.join('\n');
}

/**
 * What to share: the preset and its buffer lines when only those changed,
 * else the text.
 * @param {{text: string, preset?: string|null, presetText?: string|null}} s
 * @returns {{v: 1, p?: string, b?: string[], t?: string}}
 */
export function sharePayload({ text, preset, presetText }) {
  if (preset && presetText && stripBufferLines(text).trim() === stripBufferLines(presetText).trim()) {
    return { v: 1, p: preset, b: bufferLines(text) };
  }
  return { v: 1, t: text };
}

/**
 * Encode a payload for a URL fragment ("#g=...").
 * @param {object} payload
 * @returns {string}
 */
export function encodeShare(payload) {
  return `g=${compressToEncodedURIComponent(JSON.stringify(payload))}`;
}

/**
 * Decode a URL fragment. Null when it carries no graph; throws Error when it
 * does but is damaged.
 * @param {string} hash location.hash, with or without '#'
 * @returns {{v: 1, p?: string, b?: string[], t?: string}|null}
 */
export function decodeShare(hash) {
  const h = String(hash || '').replace(/^#/, '');
  const m = /(?:^|&)g=([^&]*)/.exec(h);
  if (!m) return null;
  const json = decompressFromEncodedURIComponent(m[1]);
  let payload;
  try { payload = JSON.parse(json || ''); } catch { payload = null; }
  if (payload && typeof payload === 'object' && payload.v !== undefined && payload.v !== 1) {
    throw new Error(`the link is of version ${JSON.stringify(payload.v).slice(0, 20)}, which this page does not read (it reads version 1)`);
  }
  if (!payload || payload.v !== 1 || (typeof payload.t !== 'string' && typeof payload.p !== 'string')) {
    throw new Error('the link is damaged (its graph could not be read)');
  }
  if (payload.b !== undefined && (!Array.isArray(payload.b) || !payload.b.every((l) => typeof l === 'string'))) {
    throw new Error('the link is damaged (bad buffer lines)');
  }
  return payload;
}
