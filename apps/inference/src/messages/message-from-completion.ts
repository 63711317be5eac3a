import type { MessageUsageView } from '@gw/contracts';
import type { Prisma } from '../generated/prisma/client.js';
import type { Cost } from '../pricing/cost.js';
import type { NormalizedCompletion, NormalizedUsage } from '../providers/provider-adapter.js';
import { costView } from '../shared-pipeline/usage-view.js';

/** The parts of a Messages answer that come from the provider (the gateway adds id, model and usage). */
export interface MessageDraft {
  content: Array<Record<string, unknown>>;
  stop_reason: string | null;
  stop_sequence: string | null;
  stop_details: Record<string, unknown> | null;
  container: Record<string, unknown> | null;
  input_transformations: unknown[] | null;
  /** Usage fields Anthropic reports beyond the token counts (server_tool_use, cache_creation, service_tier, speed, inference_geo). */
  usageExtras: Record<string, unknown>;
}

/** OpenAI's finish reasons as Anthropic's stop reasons. */
const STOP_REASONS: Record<string, string> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
};

export function stopReasonOf(finishReason: string | null | undefined): string | null {
  if (finishReason === null || finishReason === undefined) return null;
  return STOP_REASONS[finishReason] ?? 'end_turn';
}

/** A reasoning_details entry (or plain reasoning text) as a thinking block. */
export function thinkingBlock(detail: Record<string, unknown>): Record<string, unknown> | undefined {
  if (detail.type === 'reasoning.text')
    return {
      type: 'thinking',
      thinking: String(detail.text ?? ''),
      signature: typeof detail.signature === 'string' ? detail.signature : '',
    };
  if (detail.type === 'reasoning.encrypted' && typeof detail.data === 'string') return { type: 'redacted_thinking', data: detail.data };
  if (detail.type === 'reasoning.summary' && typeof detail.summary === 'string')
    return { type: 'thinking', thinking: detail.summary, signature: '' };
  return undefined;
}

/**
 * A chat-completions answer (an OpenAI-format endpoint) as Messages content: reasoning as
 * thinking blocks first, then the text, then each tool call as a tool_use block.
 */
export function draftFromCompletion(completion: NormalizedCompletion): MessageDraft {
  const choice = completion.choices[0];
  const message = (choice?.message ?? {}) as unknown as Record<string, unknown>;
  const content: Array<Record<string, unknown>> = [];
  const details = Array.isArray(message.reasoning_details) ? (message.reasoning_details as Array<Record<string, unknown>>) : [];
  for (const detail of details) {
    const block = thinkingBlock(detail);
    if (block) content.push(block);
  }
  if (details.length === 0 && typeof message.reasoning === 'string' && message.reasoning.length > 0) {
    content.push({ type: 'thinking', thinking: message.reasoning, signature: '' });
  }
  if (typeof message.content === 'string' && message.content.length > 0) content.push({ type: 'text', text: message.content });
  for (const call of (message.tool_calls as Array<{ id: string; function: { name: string; arguments: string } }> | undefined) ?? []) {
    content.push({ type: 'tool_use', id: call.id, name: call.function.name, input: parseInput(call.function.arguments) });
  }
  return {
    content,
    stop_reason: stopReasonOf(choice?.finish_reason),
    stop_sequence: null,
    stop_details: null,
    container: null,
    input_transformations: null,
    usageExtras: completion.serviceTier ? { service_tier: completion.serviceTier } : {},
  };
}

/** Tool-call arguments are a JSON string; Anthropic's input is the object (unparsable text kept under `_raw`). */
function parseInput(raw: string): Record<string, unknown> {
  if (raw.length === 0) return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // kept below
  }
  return { _raw: raw };
}

/**
 * Anthropic's usage from the normalised counts: `input_tokens` excludes cache reads and
 * writes (the normalised prompt tokens include both), plus the gateway's cost fields as on
 * chat completions.
 */
export function messageUsageView(
  usage: NormalizedUsage,
  extras: Record<string, unknown>,
  cost: Cost,
  isByok: boolean,
  charged: Prisma.Decimal,
): MessageUsageView {
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  return {
    ...extras,
    input_tokens: Math.max(usage.promptTokens - usage.cachedTokens - cacheWrite, 0),
    output_tokens: usage.completionTokens,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: usage.cachedTokens,
    ...costView(cost, isByok, charged),
  };
}

/** An Anthropic-format endpoint's answer, relayed: everything but id, model and usage as it came. */
export function draftFromNative(message: Record<string, unknown>): MessageDraft {
  const usage = (message.usage ?? {}) as Record<string, unknown>;
  const usageExtras: Record<string, unknown> = {};
  for (const field of ['cache_creation', 'server_tool_use', 'service_tier', 'speed', 'inference_geo'])
    if (usage[field] !== undefined) usageExtras[field] = usage[field];
  return {
    content: (message.content as Array<Record<string, unknown>>) ?? [],
    stop_reason: (message.stop_reason as string | null | undefined) ?? null,
    stop_sequence: (message.stop_sequence as string | null | undefined) ?? null,
    stop_details: (message.stop_details as Record<string, unknown> | null | undefined) ?? null,
    container: (message.container as Record<string, unknown> | null | undefined) ?? null,
    input_transformations: (message.input_transformations as unknown[] | null | undefined) ?? null,
    usageExtras,
  };
}
