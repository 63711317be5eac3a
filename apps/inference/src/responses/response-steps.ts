import type { ResponsesUsageView } from '@gw/contracts';

type Body = Record<string, unknown>;

/**
 * The agent loop of a Responses request, one model call per step. Today every request is
 * one step: function calls go back to the client, which runs them and sends the whole
 * conversation again. The server-tools issue plugs in through `continueAfter`: while the
 * model calls server tools, it runs them and returns the next step's body (their results
 * appended), bounded by `max_tool_calls` (at most 30, spec §8) or `stop_server_tools_when`.
 */
export async function runSteps<Outcome>(
  first: Body,
  step: (body: Body, stepNumber: number) => Promise<Outcome>,
  continueAfter: (body: Body, outcome: Outcome, stepNumber: number) => Body | undefined = () => undefined,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (let body: Body | undefined = first, stepNumber = 1; body; stepNumber++) {
    const outcome = await step(body, stepNumber);
    outcomes.push(outcome);
    body = continueAfter(body, outcome, stepNumber);
  }
  return outcomes;
}

/** The usage of a response that took several model calls: the sum of each call's. */
export function sumUsage(usages: readonly ResponsesUsageView[]): ResponsesUsageView {
  const [first, ...rest] = usages;
  if (!first) throw new Error('a response has at least one step');
  const total = structuredClone(first);
  for (const usage of rest) {
    total.input_tokens += usage.input_tokens;
    total.input_tokens_details.cached_tokens += usage.input_tokens_details.cached_tokens;
    total.output_tokens += usage.output_tokens;
    total.output_tokens_details.reasoning_tokens += usage.output_tokens_details.reasoning_tokens;
    total.total_tokens += usage.total_tokens;
    total.cost += usage.cost;
    total.is_byok ||= usage.is_byok;
    total.cost_details.upstream_inference_cost =
      total.cost_details.upstream_inference_cost === null && usage.cost_details.upstream_inference_cost === null
        ? null
        : (total.cost_details.upstream_inference_cost ?? 0) + (usage.cost_details.upstream_inference_cost ?? 0);
    total.cost_details.upstream_inference_input_cost += usage.cost_details.upstream_inference_input_cost;
    total.cost_details.upstream_inference_output_cost += usage.cost_details.upstream_inference_output_cost;
    for (const field of ['server_tool_use', 'server_tool_use_details'] as const) {
      const add = usage[field];
      if (!add) continue;
      const into = (total[field] ??= { tool_calls_executed: 0, tool_calls_requested: 0, web_search_requests: 0 });
      into.tool_calls_executed = (into.tool_calls_executed ?? 0) + (add.tool_calls_executed ?? 0);
      into.tool_calls_requested = (into.tool_calls_requested ?? 0) + (add.tool_calls_requested ?? 0);
      into.web_search_requests = (into.web_search_requests ?? 0) + (add.web_search_requests ?? 0);
    }
  }
  total.cost = Number(total.cost.toFixed(12));
  return total;
}
