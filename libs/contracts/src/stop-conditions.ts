/**
 * `stop_server_tools_when` (spec §4.5): the five condition kinds and the value each
 * needs. Checked at the edge on every body that carries it (chat, Responses, preset bodies, so a
 * preset never stores one that every later use would refuse) and read by inference's loop.
 */
export type StopCondition =
  | { type: 'step_count_is'; step_count: number }
  | { type: 'max_cost'; max_cost_in_dollars: number }
  | { type: 'has_tool_call'; tool_name: string }
  | { type: 'max_tokens_used'; max_tokens: number }
  | { type: 'finish_reason_is'; reason: string };

export const STOP_CONDITION_FIELDS: Readonly<Record<StopCondition['type'], { field: string; kind: 'count' | 'amount' | 'name' }>> = {
  step_count_is: { field: 'step_count', kind: 'count' },
  max_cost: { field: 'max_cost_in_dollars', kind: 'amount' },
  has_tool_call: { field: 'tool_name', kind: 'name' },
  max_tokens_used: { field: 'max_tokens', kind: 'count' },
  finish_reason_is: { field: 'reason', kind: 'name' },
};

const EXPECTED = { count: 'a positive integer', amount: 'a number of dollars, 0 or more', name: 'a non-empty string' } as const;

/** What is wrong with a `stop_server_tools_when` value (null and absent are fine), or undefined. */
export function stopConditionsProblem(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length === 0) return 'stop_server_tools_when must be an array of at least one stop condition';
  for (const [position, raw] of (value as Array<Record<string, unknown> | null>).entries()) {
    const where = `stop_server_tools_when[${position}]`;
    const spec = STOP_CONDITION_FIELDS[raw?.type as StopCondition['type']];
    if (!spec) return `${where}: unknown stop condition ${String(raw?.type)}; known: ${Object.keys(STOP_CONDITION_FIELDS).join(', ')}`;
    const field = raw![spec.field];
    const valid =
      spec.kind === 'count'
        ? Number.isInteger(field) && (field as number) >= 1
        : spec.kind === 'amount'
          ? typeof field === 'number' && Number.isFinite(field) && field >= 0
          : typeof field === 'string' && field.length > 0;
    if (!valid) return `${where}: ${String(raw!.type)} needs ${spec.field}, ${EXPECTED[spec.kind]}`;
  }
  return undefined;
}
