import type { PromptText } from '../../pricing/token-estimate.js';
import type { AnnotationView, ChatChoiceView } from '@gw/contracts';
import { reportedTier } from '../../routing/service-tier.js';
import { webSearchCitation } from '../assistant-message.js';
import { estimatedUsageOfBlocks, messageOfBlocks } from '../block-message.js';
import type { NormalizedCompletion, NormalizedUsage } from '../provider-adapter.js';
import { ANTHROPIC_REASONING_FORMAT, type AnthropicBlock } from './anthropic-messages.js';

export interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  service_tier?: string | null;
  server_tool_use?: { web_search_requests?: number | null; web_fetch_requests?: number | null } | null;
}

export interface AnthropicMessageResponse {
  id?: string;
  type?: string;
  content?: AnthropicBlock[];
  stop_reason?: string | null;
  usage?: AnthropicUsage | null;
}

/** Anthropic's stop reasons in OpenAI's finish reasons; the native one is kept beside it. */
const FINISH_REASONS: Record<string, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  pause_turn: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

export function anthropicFinishReason(native: string | null | undefined): string | null {
  if (native === null || native === undefined) return null;
  return FINISH_REASONS[native] ?? 'stop';
}

/**
 * Token counts as OpenRouter reports them for Anthropic: prompt tokens include the cache reads
 * and cache writes (Anthropic's `input_tokens` excludes both), `cached_tokens` are the reads,
 * `cache_write_tokens` the writes. Anthropic does not count thinking tokens apart from
 * output tokens, so reasoning tokens stay 0 (they are inside completion_tokens).
 */
export function normalizeAnthropicUsage(usage: AnthropicUsage | null | undefined): NormalizedUsage | undefined {
  if (!usage || typeof usage.input_tokens !== 'number' || typeof usage.output_tokens !== 'number') return undefined;
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const normalized: NormalizedUsage = {
    promptTokens: usage.input_tokens + cacheRead + cacheWrite,
    completionTokens: usage.output_tokens,
    cachedTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: 0,
    estimated: false,
  };
  const tools = usage.server_tool_use;
  if (tools) {
    // Anthropic runs these tools itself: each request was both asked for and executed.
    const searches = tools.web_search_requests ?? 0;
    const calls = searches + (tools.web_fetch_requests ?? 0);
    normalized.serverToolUse = { toolCallsExecuted: calls, toolCallsRequested: calls, webSearchRequests: searches };
  }
  return normalized;
}

/** A thinking block as a reasoning_details entry (the signature lets the client send it back). */
export function reasoningDetail(block: AnthropicBlock, index: number): Record<string, unknown> | undefined {
  if (block.type === 'thinking') {
    return {
      type: 'reasoning.text',
      text: block.thinking ?? '',
      signature: block.signature ?? null,
      format: ANTHROPIC_REASONING_FORMAT,
      index,
    };
  }
  if (block.type === 'redacted_thinking')
    return { type: 'reasoning.encrypted', data: block.data ?? '', format: ANTHROPIC_REASONING_FORMAT, index };
  return undefined;
}

/**
 * Anthropic's citations as spec §2.1 annotations: a web search result location is a
 * `web_search_citation`; a document location (char/page/block) has no URL and no spec kind, so
 * it is not reported (its cited text is already in the answer).
 */
function citationAnnotations(citations: unknown): AnnotationView[] {
  if (!Array.isArray(citations)) return [];
  return citations
    .filter(
      (c): c is Record<string, unknown> =>
        c !== null && typeof c === 'object' && (c as Record<string, unknown>).type === 'web_search_result_location',
    )
    .filter((c) => typeof c.url === 'string')
    .map((c) => ({ type: 'web_search_citation' as const, web_search_citation: webSearchCitation(c) }));
}

/** The results of Anthropic's server-side web search, each a `web_search_citation` (url, title). */
function searchResultAnnotations(content: unknown): AnnotationView[] {
  if (!Array.isArray(content)) return [];
  return content
    .filter(
      (r): r is Record<string, unknown> =>
        r !== null &&
        typeof r === 'object' &&
        (r as Record<string, unknown>).type === 'web_search_result' &&
        typeof (r as Record<string, unknown>).url === 'string',
    )
    .map((r) => ({ type: 'web_search_citation' as const, web_search_citation: webSearchCitation({ url: r.url, title: r.title }) }));
}

/** A Messages API response as one chat-completions choice. */
export function normalizeAnthropicMessage(
  response: AnthropicMessageResponse,
  options: { excludeReasoning: boolean; promptText: PromptText },
): NormalizedCompletion {
  const text: string[] = [];
  const reasoning: string[] = [];
  const reasoningDetails: Array<Record<string, unknown>> = [];
  const toolCalls: NonNullable<ChatChoiceView['message']['tool_calls']> = [];
  const annotations: AnnotationView[] = [];
  for (const block of response.content ?? []) {
    if (block.type === 'text' && typeof block.text === 'string') {
      annotations.push(...citationAnnotations(block.citations));
      text.push(block.text);
    } else if (block.type === 'web_search_tool_result') annotations.push(...searchResultAnnotations(block.content));
    else if (block.type === 'tool_use') {
      toolCalls.push({
        index: toolCalls.length,
        id: String(block.id),
        type: 'function',
        function: { name: String(block.name), arguments: JSON.stringify(block.input ?? {}) },
      });
    } else {
      const detail = reasoningDetail(block, reasoningDetails.length);
      if (detail) {
        reasoningDetails.push(detail);
        if (block.type === 'thinking' && typeof block.thinking === 'string') reasoning.push(block.thinking);
      }
    }
  }
  const blocks = { text, reasoning, reasoningDetails, toolCalls, annotations };
  const message = messageOfBlocks(blocks, options.excludeReasoning);
  const native = response.stop_reason ?? null;
  return {
    upstreamId: response.id ?? null,
    systemFingerprint: null,
    serviceTier: reportedTier(response.usage?.service_tier),
    choices: [{ index: 0, message, finish_reason: anthropicFinishReason(native), native_finish_reason: native, logprobs: null }],
    // Anthropic always reports usage; a host imitating it might not.
    usage: normalizeAnthropicUsage(response.usage) ?? estimatedUsageOfBlocks(blocks, options.promptText),
  };
}
