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
  /** Streaming debug output (spec §2.1), on chunks without choices, only when the request asked for `debug`. */
  debug?: ChatStreamDebugView;
  /** Routing metadata (spec §2.6) on the first chunk, when the caller opted in. */
  service_metadata?: ServiceMetadataView;
  /** The same, under the name `X-OpenRouter-Metadata` asks for (what `@openrouter/sdk` parses). */
  openrouter_metadata?: ServiceMetadataView;
  /** Server tools the gateway ran for the model, one chunk without choices per step. */
  server_tool_calls?: ServerToolCallChunkView[];
}

export interface ChatStreamDebugView {
  /** With server tools: which model call of the loop this debug chunk describes (1-based). */
  step?: number;
  /** The exact body sent to the provider (`debug.echo_upstream_body: true`). */
  echo_upstream_body?: Record<string, unknown>;
  /** Milestones of the provider call: ms since the request began and wall-clock time. */
  timings?: Array<{
    start_ms: number;
    event: 'adapter_request' | 'upstream_headers_received' | 'first_token_received' | 'upstream_body_ended';
    epoch_ms: number;
  }>;
}

/** One server tool call in a chat stream's step chunk. */
export interface ServerToolCallChunkView {
  id: string;
  type: 'web_search' | 'web_fetch';
  status: 'completed' | 'failed';
  query?: string;
  url?: string;
  results?: number;
  error?: string;
}
