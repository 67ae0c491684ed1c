// Banner.jsx: the current notice (import errors, planner errors, warnings such as names the tables lack, info).
import { notice, textErrors, setNotice } from '../state.js';

export function Banner() {
  const n = notice.value;
  const errs = textErrors.value;
  return (
    <div class="banners">
      {n && (
        <div class={`banner ${n.kind}`} role={n.kind === 'error' ? 'alert' : 'status'} data-testid="notice">
          <span>{n.message}</span>
          <button class="close" onClick={() => setNotice(null)} aria-label="dismiss">×</button>
        </div>
      )}
      {errs.length > 0 && (
        <div class="banner error" role="alert" data-testid="text-error">
          <span>
            line {errs[0].line}: {errs[0].message}
            {errs.length > 1 ? ` (and ${errs.length - 1} more)` : ''} — showing the last good plan
          </span>
        </div>
      )}
    </div>
  );
}
