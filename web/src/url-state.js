// url-state.js: nothing lost. The URL follows what the page shows, short: a model card as its
// name and the line of llama.cpp flags the CLI takes (#card=NAME&flags=-c 4096 ... --device
// cuda:24576MiB -ngl 20), a preset as its name and changed @buffer lines (share.js); an edited
// graph is kept in the browser (localStorage) instead of a long link, and a reload without a
// link brings back the last model or text. Share (Header.jsx) still makes a link of any text.

import { effect } from '@preact/signals';
import { galloc, text, presetName, presetText, restoreEdited } from './state.js';
import { modelShown, modelSource, settings, openCard, setSettings } from './model-state.js';
import { devices, placement, currentArgs, setDevices, setPlacementAll } from './device-state.js';
import { parseMemoryArgs } from './core/devices.js';
import { START_SETTINGS } from './core/model-settings.js';
import { encodeShare, sharePayload, stripBufferLines } from './core/share.js';

const KEY = 'galloc.page.v1';
/** texts longer than this are not kept (the browser's storage is a few MiB) */
const MAX_KEPT = 1500000;

/** the fragment of a model card at the settings shown ('' for a dropped file: not in a link) */
export function modelFragment() {
  const src = modelSource.value;
  if (!src || src.kind !== 'card') return '';
  const p = new URLSearchParams({ card: src.cardName, flags: currentArgs().join(' ') });
  if (settings.value.graph === 'decode') p.set('graph', 'decode');
  return p.toString();
}

/**
 * Open a model card from a fragment (#card=NAME&flags=...).
 * @param {string} fragment
 * @returns {boolean} false when it names no card
 * @throws {Error} a damaged flags line, naming the flag
 */
export function openModelFragment(fragment) {
  const p = new URLSearchParams(String(fragment).replace(/^#/, ''));
  const card = p.get('card');
  if (!card) return false;
  const flags = (p.get('flags') ?? '').trim();
  const r = parseMemoryArgs(flags ? flags.split(/\s+/) : [], START_SETTINGS);
  setSettings({ ...r.settings, graph: p.get('graph') === 'decode' ? 'decode' : 'prompt' });
  setDevices(r.devices);
  setPlacementAll(r.placement);
  return openCard(card);
}

function readKept() {
  try { return JSON.parse(localStorage.getItem(KEY) ?? 'null'); } catch { return null; }
}

/**
 * At start, once the module is loaded (state.js start's restore hook): a model link, or with no
 * link at all the last session's model or text. True when it put something on screen.
 * @returns {boolean}
 */
export function restoreAtStart() {
  const hash = typeof location === 'undefined' ? '' : location.hash;
  try {
    if (/(?:^#?|&)card=/.test(hash)) return openModelFragment(hash);
  } catch (e) {
    return false; // state.js shows the default graph; the banner says why
  }
  if (hash.replace(/^#/, '') !== '') return false; // a share link: state.js reads it
  const kept = readKept();
  if (!kept || typeof kept !== 'object') return false;
  try {
    if (typeof kept.model === 'string' && openModelFragment(kept.model)) return true;
  } catch { /* a kept model this page cannot open: the text or the default */ }
  if (typeof kept.text === 'string' && kept.text.trim() !== '') {
    restoreEdited(kept.text, typeof kept.preset === 'string' ? kept.preset : null);
    return true;
  }
  return false;
}

/** what the URL says for the page shown: a model's fragment, a preset's short link, or nothing */
function fragmentNow() {
  if (modelShown.value) return modelFragment();
  if (presetName.value && presetText.value !== null && stripBufferLines(text.value).trim() === stripBufferLines(presetText.value).trim()) {
    return encodeShare(sharePayload({ text: text.value, preset: presetName.value, presetText: presetText.value }));
  }
  return '';
}

let timer = null;
/** follow the page: the URL at once, the browser's copy after a pause (typing) */
export function followState() {
  effect(() => {
    if (!galloc.value) return;
    void text.value; void presetName.value; void modelShown.value; void settings.value; void devices.value; void placement.value;
    const frag = fragmentNow();
    const url = `${location.pathname}${location.search}${frag ? `#${frag}` : ''}`;
    if (url !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(null, '', url);
    clearTimeout(timer);
    timer = setTimeout(keep, 300);
  });
}

function keep() {
  let kept;
  if (modelShown.value) {
    const frag = modelFragment();
    if (!frag) return; // a dropped file cannot be opened again by the page: keep what was kept
    kept = { model: frag };
  } else {
    if (text.value.length > MAX_KEPT) return;
    kept = { text: text.value, preset: presetName.value };
  }
  try { localStorage.setItem(KEY, JSON.stringify(kept)); } catch { /* full or refused: nothing kept */ }
}
