// PlanStale.jsx: never a plan that does not belong to the settings shown. When the model's
// settings changed and its graph could not be built for them (an error, a size the module
// cannot plan), the graph, plan and timeline below are still the last settings': this says so,
// naming both, and the panes under it are greyed (App.jsx).
import { computed } from '@preact/signals';
import { graph } from '../state.js';
import { modelSource, settings, planSettings, modelError } from '../model-state.js';
import { commandLine } from '../core/model-settings.js';

/** true when the plan on screen is the model's, built from settings other than those shown */
export const planIsStale = computed(() => {
  const ps = planSettings.value;
  return Boolean(modelSource.value && ps && graph.value === ps.graph && commandLine(ps.settings) !== commandLine(settings.value));
});

export function PlanStale() {
  if (!planIsStale.value) return null;
  return (
    <div class="stale-note banner warning" data-testid="plan-stale" role="status">
      The graph, plan and timeline below are of <code>{commandLine(planSettings.value.settings)}</code>, not of the settings
      shown (<code>{commandLine(settings.value)}</code>){modelError.value ? `: ${modelError.value}` : ''}.
    </div>
  );
}
