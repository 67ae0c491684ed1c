// timeline-scale.js: the byte scale the timeline starts with, chosen for the plan by one rule.
//
// A tensor is readable when its rectangle is at least READABLE_PX tall. The timeline starts on the
// linear scale (offsets and sizes in proportion, what the teaching scenarios show) when, with the
// lanes as tall as they are laid out, at least READABLE_SHARE of the tensors that own memory are
// readable on it; otherwise (one huge tensor beside many small ones, a 70B plan's result_output at
// 94 % of its chunk) on the piecewise scale, where every band between two tensor edges is as tall
// as the log of its bytes. A person's choice in the menu overrides it.

import { timelineLayout, rectBox, IDENTITY_X, IDENTITY_Y } from './timeline-layout.js';

/** px: the height at which a rectangle can be seen, hovered and told from its neighbours */
export const READABLE_PX = 4;
/** the share of tensors that must be readable on the linear scale for it to be the default */
export const READABLE_SHARE = 0.9;

/**
 * The share of memory-owning tensors at least READABLE_PX tall in a layout.
 * @param {object} layout timelineLayout(...)
 * @returns {number} 0..1 (1 with no tensor)
 */
export function readableShare(layout) {
  let n = 0;
  let ok = 0;
  for (const lane of layout.lanes) {
    for (const r of lane.rects) {
      if (r.view) continue;
      n++;
      if (rectBox(layout, lane, r, IDENTITY_X, IDENTITY_Y).h >= READABLE_PX) ok++;
    }
  }
  return n ? ok / n : 1;
}

/**
 * The default byte scale for a timeline source at a size.
 * @param {object} model the timeline's source (plan-model.js, whatif-model.js)
 * @param {{width: number, height: number, showViews?: boolean}} size as given to timelineLayout
 * @returns {{scale: 'linear'|'piecewise', share: number}} share: readable on the linear scale
 */
export function defaultByteScale(model, size) {
  const share = readableShare(timelineLayout(model, { ...size, scale: 'linear' }));
  return { scale: share >= READABLE_SHARE ? 'linear' : 'piecewise', share };
}

/** px: lanes are never grown past this to make tensors readable */
export const MAX_LANE_PX = 200;
/** past this many rectangles the lanes are not grown (each try lays the plan out again) */
const GROW_LIMIT = 20000;

/**
 * The timeline's layout with the byte scale and lane heights chosen for the plan: the scale
 * asked for, or with 'auto' the one defaultByteScale picks; then, when fewer than
 * READABLE_SHARE of the tensors are readable at the height the lanes share (many chunks), the
 * lanes are made taller (x1.5 at a time, up to MAX_LANE_PX) until they are, and the page scrolls.
 * @param {object} model the timeline's source
 * @param {{width: number, height: number, showViews?: boolean, scale?: 'auto'|'linear'|'log'|'piecewise'}} opts
 * @returns {{layout: object, scale: string, auto: boolean, share: number}} share: readable at the scale chosen
 */
export function chooseTimelineLayout(model, { scale = 'auto', ...size }) {
  const auto = scale === 'auto';
  let layout = timelineLayout(model, { ...size, scale: auto ? 'linear' : scale });
  let share = readableShare(layout);
  let chosen = auto ? 'linear' : scale;
  if (auto && share < READABLE_SHARE) {
    chosen = 'piecewise';
    layout = timelineLayout(model, { ...size, scale: chosen });
    share = readableShare(layout);
  }
  const rects = layout.lanes.reduce((a, l) => a + l.rects.length, 0);
  let lh = layout.lanes.length ? layout.lanes[0].height : 0;
  while (share < READABLE_SHARE && lh > 0 && lh < MAX_LANE_PX && rects <= GROW_LIMIT) {
    lh = Math.min(MAX_LANE_PX, Math.ceil(lh * 1.5));
    layout = timelineLayout(model, { ...size, scale: chosen, laneHeight: lh });
    share = readableShare(layout);
  }
  return { layout, scale: chosen, auto, share };
}
