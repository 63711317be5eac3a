import { GatewayError } from '@gw/errors';
import { applyPromptCaching } from './anthropic-caching.js';
import { translateConversation } from './anthropic-messages.js';
import { grammarToolRefused } from '../custom-tool-calls.js';

/**
 * Anthropic requires `max_tokens`; OpenAI's clients usually omit it. 4096 is what every
 * current Claude model can produce, so an omitted limit never makes the call fail
 * (docs/adr: Anthropic translation).
 */
export const DEFAULT_MAX_TOKENS = 4096;

/** Anthropic's smallest thinking budget, and the largest this gateway derives from an effort. */
const MIN_THINKING_BUDGET = 1024;
const MAX_THINKING_BUDGET = 128_000;

/**
 * Share of max_tokens given to thinking per reasoning effort, as OpenRouter documents its
 * mapping (https://openrouter.ai/docs/use-cases/reasoning-tokens): budget_tokens =
 * max(min(max_tokens * ratio, 128000), 1024).
 */
const EFFORT_RATIOS: Record<string, number> = {
  max: 0.95,
  xhigh: 0.95,
  high: 0.8,
  medium: 0.5,
  low: 0.2,
  minimal: 0.1,
};

export interface AnthropicRequestOptions {
  stream: boolean;
  endUserHash?: string;
  /** Anthropic's `service_tier` (`auto` / `standard_only`), already chosen for the endpoint (routing/service-tier.ts). */
  serviceTier?: string;
}

/** The Messages API body for an OpenAI chat-completions body. */
export function buildAnthropicBody(
  body: Record<string, unknown>,
  upstreamModel: string,
  options: AnthropicRequestOptions,
): Record<string, unknown> {
  if (typeof body.n === 'number' && body.n > 1) {
    throw GatewayError.badRequest("n greater than 1 is not supported by this model's provider (Anthropic answers one choice per call)");
  }
  const { system, messages } = translateConversation(body.messages);
  const requestedMax = positiveInt(body.max_completion_tokens) ?? positiveInt(body.max_tokens);
  const thinkingBudget = thinkingBudgetFor(body, requestedMax);
  const upstream: Record<string, unknown> = {
    model: upstreamModel,
    max_tokens: requestedMax ?? (thinkingBudget ? thinkingBudget + DEFAULT_MAX_TOKENS : DEFAULT_MAX_TOKENS),
    messages,
  };
  if (system) upstream.system = system;
  if (thinkingBudget) {
    upstream.thinking = { type: 'enabled', budget_tokens: thinkingBudget };
    // With thinking on, Anthropic accepts neither temperature nor top_k, and top_p only >= 0.95.
    if (typeof body.top_p === 'number' && body.top_p >= 0.95) upstream.top_p = body.top_p;
  } else {
    // OpenAI's temperature runs 0..2, Anthropic's 0..1: higher values are capped, not refused.
    if (typeof body.temperature === 'number') upstream.temperature = Math.min(body.temperature, 1);
    if (typeof body.top_p === 'number') upstream.top_p = body.top_p;
    if (typeof body.top_k === 'number') upstream.top_k = body.top_k;
  }
  const stops = stopSequences(body.stop);
  if (stops) upstream.stop_sequences = stops;
  if (options.endUserHash) upstream.metadata = { user_id: options.endUserHash };
  const tools = translateTools(body.tools);
  if (tools) upstream.tools = tools;
  const toolChoice = translateToolChoice(body.tool_choice, body.parallel_tool_calls, tools !== undefined);
  if (toolChoice) upstream.tool_choice = toolChoice;
  applyPromptCaching(body, { system, messages, tools });
  if (options.serviceTier) upstream.service_tier = options.serviceTier;
  const outputFormat = outputFormatFor(body.response_format);
  if (outputFormat) upstream.output_config = { format: outputFormat };
  if (options.stream) upstream.stream = true;
  return upstream;
}

/**
 * OpenAI's `response_format` as Anthropic structured outputs (`output_config.format`, a JSON
 * schema the answer is constrained to). `json_object` has no Anthropic equivalent that
 * guarantees JSON without a schema, so it is refused rather than quietly ignored; `text` is
 * the default and needs nothing.
 */
function outputFormatFor(format: unknown): Record<string, unknown> | undefined {
  if (format === undefined || format === null) return undefined;
  const type = (format as { type?: unknown }).type;
  if (type === 'text') return undefined;
  if (type === 'json_schema') {
    const schema = ((format as { json_schema?: { schema?: unknown } }).json_schema ?? {}).schema;
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) {
      throw GatewayError.badRequest('response_format.json_schema.schema must be a JSON schema object');
    }
    return { type: 'json_schema', schema };
  }
  if (type === 'json_object') {
    throw GatewayError.badRequest(
      `response_format {"type": "json_object"} is not supported by this model's provider (Anthropic): send {"type": "json_schema", "json_schema": {"name", "schema"}} instead`,
    );
  }
  throw GatewayError.badRequest(`response_format.type "${String(type)}" is not supported by this model's provider (Anthropic)`);
}

function positiveInt(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : undefined;
}

/**
 * The thinking budget, or undefined when thinking stays off. `reasoning.max_tokens` is taken
 * as the budget; an effort (`reasoning.effort` or `reasoning_effort`) is a share of max_tokens;
 * `reasoning.enabled: true` alone means medium. The budget always leaves room for the answer
 * inside the caller's max tokens (OpenAI counts reasoning as completion tokens); when that
 * room is below Anthropic's 1024 minimum, thinking stays off.
 */
export function thinkingBudgetFor(body: Record<string, unknown>, requestedMax: number | undefined): number | undefined {
  const reasoning = (body.reasoning !== null && typeof body.reasoning === 'object' ? body.reasoning : {}) as Record<string, unknown>;
  const effort =
    typeof reasoning.effort === 'string' ? reasoning.effort : typeof body.reasoning_effort === 'string' ? body.reasoning_effort : undefined;
  if (reasoning.enabled === false || effort === 'none') return undefined;
  let budget: number | undefined;
  const explicit = positiveInt(reasoning.max_tokens);
  if (explicit !== undefined) budget = Math.max(explicit, MIN_THINKING_BUDGET);
  else if (effort !== undefined || reasoning.enabled === true) {
    const ratio = EFFORT_RATIOS[effort ?? 'medium'] ?? EFFORT_RATIOS.medium!;
    const base = requestedMax ?? DEFAULT_MAX_TOKENS;
    budget = Math.max(Math.min(Math.floor(base * ratio), MAX_THINKING_BUDGET), MIN_THINKING_BUDGET);
  }
  if (budget === undefined) return undefined;
  if (requestedMax !== undefined) {
    if (requestedMax <= MIN_THINKING_BUDGET) return undefined;
    budget = Math.min(budget, requestedMax - 1);
  }
  return budget;
}

function stopSequences(stop: unknown): string[] | undefined {
  if (typeof stop === 'string') return stop.length > 0 ? [stop] : undefined;
  if (Array.isArray(stop)) {
    const sequences = stop.filter((item): item is string => typeof item === 'string' && item.length > 0);
    return sequences.length > 0 ? sequences : undefined;
  }
  return undefined;
}

/** Function tools as Anthropic tools ({name, description, input_schema}). */
export function translateTools(tools: unknown): Array<Record<string, unknown>> | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  return tools.map((tool: Record<string, unknown>, index) => {
    const fn = tool?.function as Record<string, unknown> | undefined;
    if (tool?.type === 'custom') throw grammarToolRefused("this model's provider (Anthropic Messages)", tools);
    if (tool?.type !== 'function' || !fn || typeof fn.name !== 'string') {
      throw GatewayError.badRequest(
        `tools[${index}] must be a function tool ({type: "function", function: {name, ...}}) for this model's provider`,
      );
    }
    const translated: Record<string, unknown> = {
      name: fn.name,
      input_schema: fn.parameters ?? { type: 'object', properties: {} },
    };
    if (typeof fn.description === 'string') translated.description = fn.description;
    if (tool.cache_control !== undefined) translated.cache_control = tool.cache_control;
    return translated;
  });
}

/**
 * auto -> auto, none -> none, required -> any, {function: {name}} -> {tool, name};
 * `parallel_tool_calls: false` -> `disable_parallel_tool_use: true`.
 */
export function translateToolChoice(choice: unknown, parallelToolCalls: unknown, hasTools: boolean): Record<string, unknown> | undefined {
  if (!hasTools) return undefined;
  let translated: Record<string, unknown> | undefined;
  if (choice === 'auto') translated = { type: 'auto' };
  else if (choice === 'none') translated = { type: 'none' };
  else if (choice === 'required') translated = { type: 'any' };
  else if (choice !== null && typeof choice === 'object') {
    const name = ((choice as Record<string, unknown>).function as Record<string, unknown> | undefined)?.name;
    if (typeof name !== 'string')
      throw GatewayError.badRequest('tool_choice must be "auto", "none", "required" or {type: "function", function: {name}}');
    translated = { type: 'tool', name };
  } else if (choice !== undefined && choice !== null) {
    throw GatewayError.badRequest('tool_choice must be "auto", "none", "required" or {type: "function", function: {name}}');
  }
  if (parallelToolCalls === false && translated?.type !== 'none') {
    translated = { ...(translated ?? { type: 'auto' }), disable_parallel_tool_use: true };
  }
  return translated;
}
