// colors.js: colours of the timeline. Tensors of one family (a root, the
// tensors that took its memory over in place, and views of them) share a
// hue; hues step by the golden angle so neighbours differ.

/**
 * Fill of a tensor's rectangle.
 * @param {number} family root tensor index
 * @param {number} i tensor index (alternates lightness inside a family)
 * @returns {string}
 */
export function fillColor(family, i) {
  const h = (family * 137.508) % 360;
  const l = family === i ? 62 : 70;
  return `hsl(${h.toFixed(1)} 58% ${l}%)`;
}

/**
 * Outline colour for a family (views are drawn with it, dashed, unfilled).
 * @param {number} family
 * @returns {string}
 */
export function strokeColor(family) {
  const h = (family * 137.508) % 360;
  return `hsl(${h.toFixed(1)} 60% 32%)`;
}

export const COLORS = {
  chunkLine: '#4b5563',
  maxLine: '#dc2626',
  capacityLine: '#059669',
  gap: 'rgba(34, 197, 94, 0.28)',
  gapStroke: '#15803d',
  placed: '#2563eb',
  freed: '#f59e0b',
  selected: '#111827',
  cursor: '#7c3aed',
  faded: 0.18,
};
