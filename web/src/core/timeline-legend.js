// timeline-legend.js: the words of the timeline's legend, and which marks a timeline draws.
//
// One table of the marks (label and longer title) read by the legend on screen
// (TimelineLegend.jsx) and by the SVG/PNG export (timeline-svg.js), so both name the same marks
// the same way; legendMarks says which of them a layout draws, legendIds lists them in order.

/** every mark of the timeline: the legend's label and its hover title */
export const LEGEND = {
  family: { label: 'a colour per in-place family', title: 'a tensor and the tensors that took its memory over in place (and their views) share a hue; the root is darker' },
  item: { label: 'an item (one rectangle per row)', title: 'a MiniMalloc CSV row or a what-if item: its lifetime across, its bytes up' },
  view: { label: 'view (no memory of its own)', title: 'a view is drawn dashed over the tensor whose memory it uses' },
  chunk: { label: 'chunk size', title: 'the size the allocator gives the chunk: its top' },
  max: { label: 'max buffer size', title: 'the buffer type\'s max size: a tensor that would cross it opens a new chunk' },
  capacity: { label: 'capacity', title: 'the capacity a what-if problem was given' },
  step: { label: 'the step', title: 'the node being computed' },
  'high-water': { label: 'high water so far', title: 'the highest byte used up to this step' },
  gap: { label: 'free at the step', title: 'free space inside the chunk at this step' },
  placed: { label: 'placed', title: 'memory handed out at this step' },
  freed: { label: 'freed', title: 'memory given back at this step' },
};

/**
 * Which marks a timeline draws.
 * @param {object} layout timelineLayout(...)
 * @param {{tensors?: boolean, stepped?: boolean}} source the timeline's source
 * @param {boolean} showViews views drawn
 * @param {boolean} atStep a step shown
 * @returns {{tensors: boolean, stepped: boolean, atStep: boolean, views: boolean, maxSize: boolean, capacity: boolean}}
 */
export function legendMarks(layout, source, showViews, atStep) {
  return {
    tensors: Boolean(source.tensors),
    stepped: Boolean(source.stepped),
    atStep: Boolean(source.stepped && atStep),
    views: Boolean(showViews && layout.lanes.some((l) => l.rects.some((r) => r.view))),
    maxSize: layout.lanes.some((l) => l.maxSize),
    capacity: layout.lanes.some((l) => l.capacity),
  };
}

/**
 * The legend's entries for those marks, in the order shown.
 * @param {ReturnType<typeof legendMarks>} m
 * @returns {string[]} keys of LEGEND
 */
export function legendIds(m) {
  return [
    m.tensors ? 'family' : 'item',
    ...(m.views ? ['view'] : []),
    'chunk',
    ...(m.maxSize ? ['max'] : []),
    ...(m.capacity ? ['capacity'] : []),
    ...(m.atStep ? ['step', 'high-water', 'gap', 'placed', 'freed'] : []),
  ];
}
