import type { ChatUsageView, ServiceMetadataView } from './chat-completion.view.js';

/** One streamed choice delta, as OpenAI streams it, with the provider's own finish reason. */
export interface ChatChunkChoiceView {
  index: number;
  delta: Record<string, unknown>;
  finish_reason: string | null;
  native_finish_reason: string | null;
  logprobs?: unknown;
}

/**
 * One `chat.completion.chunk` of a streamed chat completion (each SSE `data:` line). The
 * final usage chunk, sent when `stream_options.include_usage` is set, has `choices: []`.
 */
export interface ChatCompletionChunkView {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  provider: string | null;
  /** Left out when the provider sent none (OpenRouter's SDK rejects a null here). */
  system_fingerprint?: string;
  service_tier: string | null;
  choices: ChatChunkChoiceView[];
  usage?: ChatUsageView;
  /** Routing metadata (spec §2.6) on the first chunk, when the caller opted in. */
  service_metadata?: ServiceMetadataView;
}
