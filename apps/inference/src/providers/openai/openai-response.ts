import type { ChatChoiceView } from '@gw/contracts';
import { estimatePromptText, estimateTokens, type PromptText } from '../../pricing/token-estimate.js';
import { normalizeAssistantMessage, normalizeLogprobs } from '../assistant-message.js';
import type { NormalizedCompletion, NormalizedUsage } from '../provider-adapter.js';

interface OpenAiChoice {
  index?: number;
  message?: Record<string, unknown> & { content?: string | null; refusal?: string | null };
  finish_reason?: string | null;
  logprobs?: { content?: unknown[] | null; refusal?: unknown[] | null } | null;
}

type Counts = Record<string, number | null | undefined>;

export interface OpenAiUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: Counts | null;
  completion_tokens_details?: Counts | null;
  /** OpenRouter-style hosts report server tools here. */
  server_tool_use?: Counts | null;
}

export interface OpenAiChatResponse {
  id?: string;
  system_fingerprint?: string | null;
  service_tier?: string | null;
  choices?: OpenAiChoice[];
  usage?: OpenAiUsage | null;
}

/** Finish reasons of OpenAI-compatible hosts, mapped onto OpenAI's own set. */
const FINISH_REASONS: Record<string, string> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  content_filter: 'content_filter',
  eos: 'stop',
  end_turn: 'stop',
  max_tokens: 'length',
};

export function normalizeFinishReason(native: string | null | undefined): string | null {
  if (native === null || native === undefined) return null;
  return FINISH_REASONS[native] ?? native;
}

/** A chat completion of an OpenAI-compatible host, normalised (assistant-message.ts). */
export function normalizeOpenAiResponse(
  response: OpenAiChatResponse,
  promptText: PromptText,
  readUsage: (usage: OpenAiUsage | null | undefined) => NormalizedUsage | undefined = normalizeOpenAiUsage,
): NormalizedCompletion {
  const choices: ChatChoiceView[] = (response.choices ?? []).map((choice, position) => {
    return {
      index: choice.index ?? position,
      message: normalizeAssistantMessage(choice.message ?? {}),
      finish_reason: normalizeFinishReason(choice.finish_reason),
      native_finish_reason: choice.finish_reason ?? null,
      logprobs: choice.logprobs
        ? { content: normalizeLogprobs(choice.logprobs.content), refusal: normalizeLogprobs(choice.logprobs.refusal) }
        : null,
    };
  });
  const completionText = choices.map((choice) => choice.message.content ?? '').join('');
  return {
    upstreamId: response.id ?? null,
    systemFingerprint: response.system_fingerprint ?? null,
    serviceTier: response.service_tier ?? null,
    choices,
    usage: readUsage(response.usage) ?? {
      promptTokens: estimatePromptText(promptText),
      completionTokens: estimateTokens(completionText),
      cachedTokens: 0,
      reasoningTokens: 0,
      estimated: true,
    },
  };
}

/** The provider's counts, or undefined when it sent none (the caller estimates). */
export function normalizeOpenAiUsage(usage: OpenAiUsage | null | undefined): NormalizedUsage | undefined {
  if (!usage || typeof usage.prompt_tokens !== 'number' || typeof usage.completion_tokens !== 'number') return undefined;
  const prompt = usage.prompt_tokens_details ?? {};
  const completion = usage.completion_tokens_details ?? {};
  const normalized: NormalizedUsage = {
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    cachedTokens: count(prompt.cached_tokens) ?? 0,
    reasoningTokens: count(completion.reasoning_tokens) ?? 0,
    estimated: false,
  };
  // Every further detail the provider reported is kept, zeros included; none is invented.
  const details: Array<[keyof NormalizedUsage, number | undefined]> = [
    ['cacheWriteTokens', count(prompt.cache_write_tokens)],
    ['promptAudioTokens', count(prompt.audio_tokens)],
    ['promptFileTokens', count(prompt.file_tokens)],
    ['promptVideoTokens', count(prompt.video_tokens)],
    ['completionAudioTokens', count(completion.audio_tokens)],
    ['completionImageTokens', count(completion.image_tokens)],
  ];
  for (const [field, value] of details) if (value !== undefined) (normalized as unknown as Record<string, number>)[field] = value;
  const tools = usage.server_tool_use;
  if (tools) {
    normalized.serverToolUse = {
      toolCallsExecuted: count(tools.tool_calls_executed) ?? null,
      toolCallsRequested: count(tools.tool_calls_requested) ?? null,
      webSearchRequests: count(tools.web_search_requests) ?? null,
    };
  }
  return normalized;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}
