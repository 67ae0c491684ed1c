// TimelineLegend.jsx: what every mark of the timeline means, drawn with the timeline's own classes
// (style.css's .overlay rules), so a legend swatch is the mark: family colours, dashed views, the
// chunk-size line, the max-size and capacity lines, and at a step its band, the high-water line,
// free space, what was placed and freed. Only the marks the timeline shows are listed.
import { fillColor, strokeColor } from '../core/colors.js';

const W = 26, H = 12;

function Item({ testid, label, title, children }) {
  return (
    <span class="legend-item" data-testid={`legend-${testid}`} title={title}>
      <svg class="overlay" width={W} height={H} viewBox={`0 0 ${W} ${H}`} aria-hidden="true">{children}</svg>
      {label}
    </span>
  );
}

const line = (cls) => <line class={cls} x1="1" x2={W - 1} y1={H / 2} y2={H / 2} />;
const box = (cls) => <rect class={cls} x="2" y="1.5" width={W - 4} height={H - 3} />;

/**
 * @param {{views: boolean, maxSize: boolean, capacity: boolean, stepped: boolean, atStep: boolean, tensors: boolean}} p
 *   which marks the timeline draws
 */
export function TimelineLegend({ views, maxSize, capacity, stepped, atStep, tensors }) {
  return (
    <div class="timeline-legend hint" data-testid="timeline-legend">
      {tensors
        ? (
          <Item testid="family" label="a colour per in-place family" title="a tensor and the tensors that took its memory over in place (and their views) share a hue; the root is darker">
            <rect x="1" y="1.5" width="11" height={H - 3} fill={fillColor(3, 3)} /><rect x="13" y="1.5" width="11" height={H - 3} fill={fillColor(3, 4)} />
          </Item>
        )
        : (
          <Item testid="item" label="an item (one rectangle per row)" title="a MiniMalloc CSV row or a what-if item: its lifetime across, its bytes up">
            <rect x="2" y="1.5" width={W - 4} height={H - 3} fill={fillColor(5, 5)} />
          </Item>
        )}
      {views && (
        <Item testid="view" label="view (no memory of its own)" title="a view is drawn dashed over the tensor whose memory it uses">
          <rect x="2" y="1.5" width={W - 4} height={H - 3} fill="none" stroke={strokeColor(3)} stroke-dasharray="3 2" />
        </Item>
      )}
      <Item testid="chunk" label="chunk size" title="the size the allocator gives the chunk: its top">{line('chunk-line')}</Item>
      {maxSize && <Item testid="max" label="max buffer size" title="the buffer type's max size: a tensor that would cross it opens a new chunk">{line('max-line')}</Item>}
      {capacity && <Item testid="capacity" label="capacity" title="the capacity a what-if problem was given">{line('capacity-line')}</Item>}
      {stepped && !atStep && <span class="legend-item hint">(▶ or the slider: a step's band, its free space, what it places and frees)</span>}
      {atStep && (
        <>
          <Item testid="step" label="the step" title="the node being computed">{box('cursor')}</Item>
          <Item testid="high-water" label="high water so far" title="the highest byte used up to this step">{line('hw-line')}</Item>
          <Item testid="gap" label="free at the step" title="free space inside the chunk at this step">{box('gap')}</Item>
          <Item testid="placed" label="placed" title="memory handed out at this step">{box('placed')}</Item>
          <Item testid="freed" label="freed" title="memory given back at this step">{box('freed')}</Item>
        </>
      )}
    </div>
  );
}
