// TimelineLegend.jsx: what every mark of the timeline means, drawn with the timeline's own classes
// (style.css's .overlay rules), so a legend swatch is the mark: family colours, dashed views, the
// chunk-size line, the max-size and capacity lines, and at a step its band, the high-water line,
// free space, what was placed and freed. Only the marks the timeline shows are listed.
import { fillColor, strokeColor } from '../core/colors.js';
import { LEGEND } from '../core/timeline-legend.js';

const W = 26, H = 12;

function Item({ testid, children }) {
  const { label, title } = LEGEND[testid];
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
          <Item testid="family">
            <rect x="1" y="1.5" width="11" height={H - 3} fill={fillColor(3, 3)} /><rect x="13" y="1.5" width="11" height={H - 3} fill={fillColor(3, 4)} />
          </Item>
        )
        : (
          <Item testid="item">
            <rect x="2" y="1.5" width={W - 4} height={H - 3} fill={fillColor(5, 5)} />
          </Item>
        )}
      {views && (
        <Item testid="view">
          <rect x="2" y="1.5" width={W - 4} height={H - 3} fill="none" stroke={strokeColor(3)} stroke-dasharray="3 2" />
        </Item>
      )}
      <Item testid="chunk">{line('chunk-line')}</Item>
      {maxSize && <Item testid="max">{line('max-line')}</Item>}
      {capacity && <Item testid="capacity">{line('capacity-line')}</Item>}
      {stepped && !atStep && <span class="legend-item hint">(▶ or the slider: a step's band, its free space, what it places and frees)</span>}
      {atStep && (
        <>
          <Item testid="step">{box('cursor')}</Item>
          <Item testid="high-water">{line('hw-line')}</Item>
          <Item testid="gap">{box('gap')}</Item>
          <Item testid="placed">{box('placed')}</Item>
          <Item testid="freed">{box('freed')}</Item>
        </>
      )}
    </div>
  );
}
