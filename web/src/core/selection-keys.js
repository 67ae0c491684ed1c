// selection-keys.js: what a key does to the selection in the graph view and the timeline.
//
// Pure: ← / → (and ↑ / ↓) step to the previous / next tensor (from the first when none is
// selected), Home / End to the first / last, Del or Backspace removes the selected tensor (Shift:
// with its dependents), Esc clears the selection. Anything else: null (the key is left alone).

/**
 * @param {string} key KeyboardEvent.key
 * @param {{selected: number, count: number, shift?: boolean}} state
 * @returns {{type: 'select', i: number} | {type: 'remove', i: number, cascade: boolean} | {type: 'clear'} | null}
 */
export function selectionKey(key, { selected, count, shift = false }) {
  if (count <= 0) return null;
  const at = (i) => ({ type: 'select', i: Math.max(0, Math.min(count - 1, i)) });
  switch (key) {
    case 'ArrowRight': case 'ArrowDown': return at(selected < 0 ? 0 : selected + 1);
    case 'ArrowLeft': case 'ArrowUp': return at(selected < 0 ? 0 : selected - 1);
    case 'Home': return at(0);
    case 'End': return at(count - 1);
    case 'Delete': case 'Backspace': return selected >= 0 ? { type: 'remove', i: selected, cascade: shift } : null;
    case 'Escape': return selected >= 0 ? { type: 'clear' } : null;
    default: return null;
  }
}
