import type { ChatChoiceView } from '@gw/contracts';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';

export type { NormalizedUsage, ServerToolUse } from '@gw/usage';
import type { NormalizedUsage } from '@gw/usage';

/** A provider's answer, normalised to the chat-completions shape before pricing. */
export interface NormalizedCompletion {
  upstreamId: string | null;
  systemFingerprint: string | null;
  serviceTier: string | null;
  choices: ChatChoiceView[];
  usage: NormalizedUsage;
}

/** One choice's delta of a streamed chunk, in OpenAI's `chat.completion.chunk` shape. */
export interface NormalizedChunkChoice {
  index: number;
  /** role, content, refusal, reasoning, reasoning_details, tool_calls (arguments as string fragments), ... */
  delta: Record<string, unknown>;
  finish_reason: string | null;
  native_finish_reason: string | null;
  logprobs?: unknown;
}

/**
 * What a streaming adapter yields, in order. The gateway's chunks get their id, model,
 * created and provider from inference, not from the provider.
 */
export type StreamEvent =
  | { type: 'chunk'; choices: NormalizedChunkChoice[]; systemFingerprint?: string | null; serviceTier?: string | null }
  | { type: 'usage'; usage: NormalizedUsage };

export interface ChatCallContext {
  /** Workspace-scoped hash of the end-user id, never the raw id (issue 4). */
  endUserHash?: string;
  /** Workspace-scoped hash of the session id: `prompt_cache_key` for endpoints that list it (cache affinity). */
  sessionCacheKey?: string;
  /** Overrides the catalog provider's key: a BYOK credential, plaintext in memory only. */
  apiKey?: string;
  signal?: AbortSignal;
  /**
   * Streaming with `debug.echo_upstream_body`: the adapter hands over the exact body it sends
   * the provider (an adapter that does not call it just leaves the echo out).
   */
  onUpstreamBody?: (body: Record<string, unknown>) => void;
}

/** One provider wire format (OpenAI-compatible, Anthropic, ...). */
export interface ProviderAdapter {
  complete(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<NormalizedCompletion>;
  /**
   * Starts a streamed completion. Resolves once the provider accepted the call (2xx headers),
   * so a refusal or a connect failure before the first byte rejects with a (retryable)
   * UpstreamFailure and routing can try the next endpoint. After that, the iterable yields
   * events as they arrive; a failure mid-stream throws an UpstreamFailure from the iterator.
   * Breaking out of the iteration (or `context.signal`) aborts the upstream call.
   */
  stream(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<AsyncIterable<StreamEvent>>;
}
