/**
 * Issue 17's goals, each evaluated against a measured figure and printed next to it. They are
 * measured, never asserted: a shared 2-core machine makes any threshold in a test flaky.
 */
export interface Goal {
  /** What is measured, as printed. */
  name: string;
  /** The goal as printed, e.g. `≤ 1 ms`. */
  goal: string;
  /** The measured figure, in `unit`; undefined when it was not measured (e.g. Portkey skipped). */
  value: number | undefined;
  unit: string;
  /** undefined when not measured. */
  met: boolean | undefined;
}

export function atMost(name: string, value: number | undefined, limit: number, unit: string): Goal {
  return { name, goal: `≤ ${limit} ${unit}`.trim(), value, unit, met: value === undefined ? undefined : value <= limit };
}

export function below(name: string, value: number | undefined, limit: number, unit: string): Goal {
  return { name, goal: `< ${limit} ${unit}`.trim(), value, unit, met: value === undefined ? undefined : value < limit };
}

export function atLeast(name: string, value: number | undefined, limit: number, unit: string): Goal {
  return { name, goal: `≥ ${limit} ${unit}`.trim(), value, unit, met: value === undefined ? undefined : value >= limit };
}

/** A yes/no goal (zero errors, every stream complete): value 1 when it holds. */
export function holds(name: string, value: boolean | undefined, goal: string): Goal {
  return { name, goal, value: value === undefined ? undefined : value ? 1 : 0, unit: '', met: value };
}

export function verdict(goal: Goal): string {
  return goal.met === undefined ? 'not measured' : goal.met ? 'met' : 'NOT met';
}

/** One line per goal: `name: value unit (goal ≤ x: met)`. */
export function formatGoals(goals: readonly Goal[]): string {
  const shown = (goal: Goal) =>
    goal.value === undefined ? '–' : goal.unit === '' ? (goal.met ? 'yes' : 'no') : `${goal.value} ${goal.unit}`;
  const width = Math.max(...goals.map((goal) => goal.name.length));
  return goals.map((goal) => `  ${goal.name.padEnd(width)}  ${shown(goal).padStart(12)}   goal ${goal.goal}: ${verdict(goal)}`).join('\n');
}
