import { streamErrorFailure } from '../../upstream/upstream-failure.js';
import { normalizeDelta, normalizeLogprobs } from '../assistant-message.js';
import type { NormalizedChunkChoice, NormalizedUsage, StreamEvent } from '../provider-adapter.js';
import { sseJsonFrames } from '../sse-json-frames.js';
import { chunkUsage } from './hosts/host-response.js';
import { normalizeFinishReason, normalizeOpenAiUsage, type OpenAiUsage } from './openai-response.js';

interface OpenAiChunkChoice {
  index?: number;
  delta?: Record<string, unknown> | null;
  finish_reason?: string | null;
  logprobs?: { content?: unknown; refusal?: unknown } | null;
}

/** How a named host's usage and citations are read (hosts/host-response.ts); OpenAI's own way by default. */
export interface HostReaders {
  usage?: (usage: OpenAiUsage) => NormalizedUsage | undefined;
  citations?: (chunk: Record<string, unknown>) => Array<Record<string, unknown>>;
}

interface OpenAiChunk {
  system_fingerprint?: string | null;
  service_tier?: string | null;
  choices?: OpenAiChunkChoice[];
  usage?: OpenAiUsage | null;
  error?: { message?: unknown; code?: unknown; type?: unknown };
}

/**
 * OpenAI's `chat.completion.chunk` SSE stream as StreamEvents: a `chunk` event per provider
 * chunk that carries choices, then one `usage` event (the provider's last usage, sent on the
 * `choices: []` chunk that `include_usage` asks for). An `error` event or data frame, a body
 * that is not JSON, or an end without `data: [DONE]` throws a non-retryable UpstreamFailure.
 */
export async function* openAiStreamEvents(
  provider: string,
  text: AsyncIterable<string>,
  host: HostReaders = {},
): AsyncGenerator<StreamEvent> {
  let usage: NormalizedUsage | undefined;
  let cited = false;
  const readUsage = host.usage ?? normalizeOpenAiUsage;
  for await (const { event, data: chunk } of sseJsonFrames<OpenAiChunk>(provider, text, { sentinel: '[DONE]' })) {
    if (event === 'error' || chunk.error) throw streamErrorFailure(provider, chunk.error);
    const raw = chunkUsage(chunk as Record<string, unknown>);
    if (raw) usage = readUsage(raw);
    if (chunk.choices && chunk.choices.length > 0) {
      const choices = chunk.choices.map(toChunkChoice);
      // A host's citations (Perplexity repeats them on every chunk) reach the client once, on the first chunk that has them.
      const annotations = cited ? [] : (host.citations?.(chunk as Record<string, unknown>) ?? []);
      if (annotations.length > 0) {
        cited = true;
        choices[0]!.delta = { ...choices[0]!.delta, annotations };
      }
      yield {
        type: 'chunk',
        choices,
        systemFingerprint: chunk.system_fingerprint ?? null,
        serviceTier: chunk.service_tier ?? null,
      };
    }
  }
  if (usage) yield { type: 'usage', usage };
}

function toChunkChoice(choice: OpenAiChunkChoice, position: number): NormalizedChunkChoice {
  const native = choice.finish_reason ?? null;
  const normalized: NormalizedChunkChoice = {
    index: choice.index ?? position,
    delta: normalizeDelta(choice.delta ?? {}),
    finish_reason: normalizeFinishReason(native),
    native_finish_reason: native,
  };
  if (choice.logprobs !== undefined)
    normalized.logprobs =
      choice.logprobs === null
        ? null
        : { content: normalizeLogprobs(choice.logprobs.content), refusal: normalizeLogprobs(choice.logprobs.refusal) };
  return normalized;
}
