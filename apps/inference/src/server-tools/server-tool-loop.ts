import type { ChatChoiceView, ChatToolCallView } from '@gw/contracts';
import { Prisma } from '../generated/prisma/client.js';
import type { Charge } from '../pricing/charge.js';
import type { NormalizedCompletion, NormalizedUsage, ServerToolUse } from '../providers/provider-adapter.js';
import type { AttemptTracker } from '../routing/attempt-tracker.js';
import type { RouteAttempt } from '../routing/route-types.js';
import { urlCitations } from './citations.js';
import { MAX_TOOL_CALLS, type ServerToolsPlan, type StopCondition } from './server-tool-request.js';
import type { ToolFacts } from '../usage/request-facts.js';
import { sourcesOf, type ExecutedCall, type ServerToolRunner } from './server-tool-runner.service.js';

type Json = Record<string, unknown>;

/** One model call of the loop, as the route executor returned it, and the body it was called with. */
export interface ModelStep {
  completion: NormalizedCompletion;
  attempt: RouteAttempt;
  tracker: AttemptTracker;
  body: Json;
}

/** A model call of the loop after its server tools ran and it was priced (one generation). */
export interface SettledStep<Extra = unknown> extends ModelStep {
  /** The step's usage with its server tool counts. */
  usage: NormalizedUsage;
  /** What the step's server tools cost (in the generation's charge). */
  toolCost: Prisma.Decimal;
  charge: Charge;
  executed: ExecutedCall[];
  /** Whatever the caller's `settle` returned besides the charge (ids, views). */
  extra: Extra;
}

export interface LoopInput<Extra> {
  /** The internal form, server tools already presented as function tools (extractServerTools). */
  body: Json;
  plan: ServerToolsPlan;
  runner: ServerToolRunner;
  signal?: AbortSignal;
  /** One model call with this body. */
  call: (body: Json, stepNumber: number) => Promise<Omit<ModelStep, 'body'>>;
  /** Prices and records the step as one generation (its usage carries the server tool counts; `toolCost` is added to its charge). */
  /** `found`: what the server tools this step asked for found (its generation records it). */
  settle: (
    step: ModelStep,
    usage: NormalizedUsage,
    toolCost: Prisma.Decimal,
    found: ToolFacts,
  ) => Promise<{ charge: Charge; extra: Extra }>;
  /** Told each executed server tool call as it completes (streaming shows them). */
  onExecuted?: (calls: ExecutedCall[], stepNumber: number) => void;
}

/**
 * The server-tool loop, the same for every front door: call the model; when it
 * calls server tools (and only those), run them, append the assistant turn and the results,
 * and call it again. A client function tool call in the turn ends the loop: the answer goes
 * back to the client with the client's calls only. Bounds: `stop_server_tools_when` (OR of
 * its conditions, checked after each step) or else `max_tool_calls` server-tool steps
 * (default and maximum 30, which also bounds the conditions); when a bound is reached while the
 * model still calls tools, the calls already made run and one last turn is made with
 * `tool_choice: "none"`. Each model call is priced and recorded on its own.
 */
export async function runServerToolLoop<Extra>(input: LoopInput<Extra>): Promise<Array<SettledStep<Extra>>> {
  const { plan, runner } = input;
  const steps: Array<SettledStep<Extra>> = [];
  let messages = [...((input.body.messages as Json[] | undefined) ?? [])];
  let toolSteps = 0;
  let finalTurn = !plan.stopWhen && plan.maxToolCalls === 0;
  for (let stepNumber = 1; ; stepNumber++) {
    const body: Json = { ...input.body, messages };
    if (finalTurn) body.tool_choice = 'none';
    const step: ModelStep = { ...(await input.call(body, stepNumber)), body };
    const choice = step.completion.choices[0];
    const calls = choice?.message.tool_calls ?? [];
    const serverCalls = calls.filter((call) => plan.tools.has(call.function.name));
    const clientCalls = calls.filter((call) => !plan.tools.has(call.function.name));
    const ends = finalTurn || clientCalls.length > 0 || serverCalls.length === 0;

    const executed = ends
      ? []
      : await Promise.all(
          serverCalls.map((call) =>
            runner.run(
              { id: call.id, name: call.function.name, arguments: call.function.arguments },
              plan.tools.get(call.function.name)!,
              input.signal,
            ),
          ),
        );
    const toolUse: ServerToolUse = {
      toolCallsRequested: serverCalls.length,
      toolCallsExecuted: executed.filter((call) => call.ok).length,
      webSearchRequests: executed.filter((call) => call.ok && call.kind === 'web_search').length,
    };
    const usage: NormalizedUsage = { ...step.completion.usage, serverToolUse: toolUse };
    const toolCost = runner.costOf(executed);
    const { charge, extra } = await input.settle(step, usage, toolCost, toolFactsOf(executed, runner.backendName));
    steps.push({ ...step, usage, toolCost, charge, executed, extra });
    if (executed.length > 0) input.onExecuted?.(executed, stepNumber);

    if (ends) {
      if (choice) finishChoice(choice, clientCalls, steps);
      return steps;
    }
    toolSteps++;
    messages = [
      ...messages,
      assistantTurn(choice!, serverCalls),
      ...executed.map((call) => ({ role: 'tool', tool_call_id: call.callId, content: call.content })),
    ];
    const bounded = plan.stopWhen ? stopConditionFires(plan.stopWhen, steps) : toolSteps >= plan.maxToolCalls;
    if (bounded || toolSteps >= MAX_TOOL_CALLS) finalTurn = true;
  }
}

/** Spec §4.5: true when any condition holds after the steps so far (OR logic). */
function stopConditionFires(conditions: readonly StopCondition[], steps: readonly SettledStep[]): boolean {
  const last = steps.at(-1);
  if (!last) return false;
  const lastCalls = last.completion.choices[0]?.message.tool_calls ?? [];
  return conditions.some((condition) => {
    switch (condition.type) {
      case 'step_count_is':
        return steps.length >= condition.step_count;
      case 'max_cost':
        return steps
          .reduce((total, step) => total.add(step.charge.upstream.total).add(step.toolCost), new Prisma.Decimal(0))
          .gte(condition.max_cost_in_dollars);
      case 'has_tool_call':
        return lastCalls.some((call) => call.function.name === condition.tool_name);
      case 'max_tokens_used':
        return steps.reduce((total, step) => total + step.usage.promptTokens + step.usage.completionTokens, 0) >= condition.max_tokens;
      case 'finish_reason_is':
        return last.completion.choices[0]?.finish_reason === condition.reason;
    }
  });
}

/** The assistant turn as the next request carries it: its text, reasoning details, and the server calls. */
function assistantTurn(choice: ChatChoiceView, calls: readonly ChatToolCallView[]): Json {
  const message = choice.message as ChatChoiceView['message'] & { reasoning_details?: Json[] };
  const turn: Json = {
    role: 'assistant',
    content: typeof message.content === 'string' && message.content.length > 0 ? message.content : null,
    tool_calls: calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.function.name, arguments: call.function.arguments },
    })),
  };
  if (Array.isArray(message.reasoning_details) && message.reasoning_details.length > 0) turn.reasoning_details = message.reasoning_details;
  return turn;
}

/**
 * The answer the client gets: only its own tool calls (a server call the loop did not run is
 * not the client's to run), and `url_citation` annotations for the sources its text names.
 */
function finishChoice(choice: ChatChoiceView, clientCalls: ChatToolCallView[], steps: readonly SettledStep[]): void {
  const message = choice.message;
  if (clientCalls.length > 0) message.tool_calls = clientCalls.map((call, index) => ({ ...call, index }));
  else if (message.tool_calls) {
    delete message.tool_calls;
    if (choice.finish_reason === 'tool_calls') choice.finish_reason = 'stop';
  }
  const sources = sourcesOf(steps.flatMap((step) => step.executed));
  if (typeof message.content === 'string' && sources.length > 0) {
    const citations = urlCitations(message.content, sources);
    if (citations.length > 0) message.annotations = [...(message.annotations ?? []), ...citations];
  }
}

/** Results of the searches that ran and the engine; pages fetched (counted only when a search or fetch ran). */
function toolFactsOf(executed: readonly ExecutedCall[], engine: string): ToolFacts {
  const found: ToolFacts = {};
  const searches = executed.filter((call) => call.ok && call.kind === 'web_search');
  if (searches.length > 0) {
    found.numSearchResults = searches.reduce((sum, call) => sum + (call.results?.length ?? 0), 0);
    found.webSearchEngine = engine;
  }
  if (executed.some((call) => call.kind === 'web_fetch'))
    found.numFetches = executed.filter((call) => call.ok && call.kind === 'web_fetch').length;
  return found;
}
