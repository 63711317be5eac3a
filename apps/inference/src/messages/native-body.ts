import { DEFAULT_MAX_TOKENS, thinkingBudgetFor, translateToolChoice, translateTools } from '../providers/anthropic/anthropic-request.js';

/** The Messages API's top-level fields: only these go to an Anthropic-format endpoint. */
const MESSAGES_API_FIELDS = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'metadata',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
  'service_tier',
  'container',
  'mcp_servers',
  'context_management',
  'cache_control',
  'speed',
  'inference_geo',
]);

export interface NativeBodyInput {
  /** The caller's Messages body. */
  request: Record<string, unknown>;
  /** Its chat-completions form, before and after the preset was applied. */
  chat: Record<string, unknown>;
  prepared: Record<string, unknown>;
  upstreamModel: string;
  endUserHash?: string;
}

/** The beta a `system` message inside `messages` needs on Anthropic's API. */
export const MID_CONVERSATION_SYSTEM_BETA = 'mid-conversation-system-2026-04-07';

/** The `anthropic-beta` values for an Anthropic-format endpoint: the caller's, plus what its body needs. */
export function nativeBetas(request: Record<string, unknown>, callerBetas: readonly string[] | undefined): string[] {
  const betas = new Set(callerBetas ?? []);
  const messages = Array.isArray(request.messages) ? (request.messages as Array<{ role?: unknown }>) : [];
  if (messages.some((message) => message.role === 'system')) betas.add(MID_CONVERSATION_SYSTEM_BETA);
  return [...betas];
}

/**
 * The body for an Anthropic-format endpoint: the caller's own Messages body, changed only
 * where the gateway must: the upstream model id, the
 * end-user id hashed, gateway-only fields left out, and what a preset adds that the request
 * did not set (sampling, stop sequences, tools, thinking, its system prompt first).
 */
export function nativeAnthropicBody(input: NativeBodyInput): Record<string, unknown> {
  const { request, chat, prepared } = input;
  const body: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(request)) if (MESSAGES_API_FIELDS.has(field) && value !== null) body[field] = value;
  // The older spelling of structured outputs goes out as the current one.
  if (request.output_format !== undefined && request.output_format !== null) {
    const config = (body.output_config as Record<string, unknown> | undefined) ?? {};
    body.output_config = { ...config, format: config.format ?? request.output_format };
  }
  Object.assign(body, presetAdditions(chat, prepared));
  body.model = input.upstreamModel;
  const metadata = { ...((request.metadata as Record<string, unknown> | undefined) ?? {}) };
  delete metadata.user_id;
  if (input.endUserHash) metadata.user_id = input.endUserHash;
  if (Object.keys(metadata).length > 0) body.metadata = metadata;
  else delete body.metadata;
  return body;
}

/** What the preset set that the request left unset, in the Messages API's terms. */
function presetAdditions(chat: Record<string, unknown>, prepared: Record<string, unknown>): Record<string, unknown> {
  const added = (field: string) => prepared[field] !== undefined && prepared[field] !== null && chat[field] === undefined;
  const out: Record<string, unknown> = {};
  // Anthropic's temperature runs 0..1 (OpenAI's 0..2): capped as the chat translation does.
  if (added('temperature') && typeof prepared.temperature === 'number') out.temperature = Math.min(prepared.temperature, 1);
  for (const field of ['top_p', 'top_k'] as const) if (added(field)) out[field] = prepared[field];
  if (added('stop')) out.stop_sequences = typeof prepared.stop === 'string' ? [prepared.stop] : prepared.stop;
  if (added('tools')) {
    const tools = translateTools(prepared.tools);
    if (tools) out.tools = tools;
  }
  if (added('tool_choice') || added('parallel_tool_calls')) {
    const choice = translateToolChoice(prepared.tool_choice, prepared.parallel_tool_calls, true);
    if (choice) out.tool_choice = choice;
  }
  if (added('reasoning') || added('reasoning_effort')) {
    const budget = thinkingBudgetFor(prepared, typeof chat.max_tokens === 'number' ? chat.max_tokens : DEFAULT_MAX_TOKENS);
    if (budget) out.thinking = { type: 'enabled', budget_tokens: budget };
  }
  const systemPrompt = presetSystemPrompt(chat, prepared);
  if (systemPrompt !== undefined) out.system = systemPrompt;
  return out;
}

/** The preset's system prompt (applyPreset prepends it as a system message) before the request's own system. */
function presetSystemPrompt(chat: Record<string, unknown>, prepared: Record<string, unknown>): Array<Record<string, unknown>> | undefined {
  const before = Array.isArray(chat.messages) ? chat.messages.length : 0;
  const after = Array.isArray(prepared.messages) ? (prepared.messages as Array<{ role?: unknown; content?: unknown }>) : [];
  if (after.length !== before + 1 || after[0]?.role !== 'system' || typeof after[0].content !== 'string') return undefined;
  const own = (chat.messages as Array<{ role?: unknown; content?: unknown }>)[0];
  const ownSystem = own?.role === 'system' ? own.content : undefined;
  const blocks: Array<Record<string, unknown>> = [{ type: 'text', text: after[0].content }];
  if (typeof ownSystem === 'string') blocks.push({ type: 'text', text: ownSystem });
  else if (Array.isArray(ownSystem)) blocks.push(...(ownSystem as Array<Record<string, unknown>>));
  return blocks;
}
