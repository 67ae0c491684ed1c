// ui-selection-keys.test.js: the keys of the graph view and the timeline (core/selection-keys.js).
import { describe, expect, it } from 'vitest';
import { selectionKey } from '../../web/src/core/selection-keys.js';

describe('selection keys', () => {
  it('arrows step through the tensors, clamped; from the first when none is selected', () => {
    expect(selectionKey('ArrowRight', { selected: -1, count: 5 })).toEqual({ type: 'select', i: 0 });
    expect(selectionKey('ArrowRight', { selected: 2, count: 5 })).toEqual({ type: 'select', i: 3 });
    expect(selectionKey('ArrowDown', { selected: 4, count: 5 })).toEqual({ type: 'select', i: 4 });
    expect(selectionKey('ArrowLeft', { selected: 0, count: 5 })).toEqual({ type: 'select', i: 0 });
    expect(selectionKey('ArrowUp', { selected: 3, count: 5 })).toEqual({ type: 'select', i: 2 });
    expect(selectionKey('End', { selected: 1, count: 5 })).toEqual({ type: 'select', i: 4 });
    expect(selectionKey('Home', { selected: 3, count: 5 })).toEqual({ type: 'select', i: 0 });
  });
  it('Del removes the selected tensor (Shift: with dependents); Esc clears; nothing without a selection', () => {
    expect(selectionKey('Delete', { selected: 2, count: 5 })).toEqual({ type: 'remove', i: 2, cascade: false });
    expect(selectionKey('Backspace', { selected: 2, count: 5, shift: true })).toEqual({ type: 'remove', i: 2, cascade: true });
    expect(selectionKey('Delete', { selected: -1, count: 5 })).toBe(null);
    expect(selectionKey('Escape', { selected: 1, count: 5 })).toEqual({ type: 'clear' });
    expect(selectionKey('Escape', { selected: -1, count: 5 })).toBe(null);
    expect(selectionKey('a', { selected: 1, count: 5 })).toBe(null);
    expect(selectionKey('ArrowRight', { selected: -1, count: 0 })).toBe(null);
  });
});
