import type { ChatChunkChoiceView, ChatCompletionChunkView, ChatStreamDebugView, ChatUsageView } from '@gw/contracts';
import type { NormalizedChunkChoice, StreamEvent } from '../providers/provider-adapter.js';

/** The fields every chunk of one generation shares. */
export interface ChunkHead {
  /** The generation id, the same on every chunk. */
  id: string;
  created: number;
  /** The public model id the client asked for. */
  model: string;
  provider: string;
}

/** Fingerprint and tier, as the provider last reported them (they may come on any chunk). */
export interface ChunkProvenance {
  systemFingerprint: string | null;
  serviceTier: string | null;
}

/** One provider chunk as the `chat.completion.chunk` OpenAI clients read. */
export function toChunkView(
  head: ChunkHead,
  provenance: ChunkProvenance,
  event: Extract<StreamEvent, { type: 'chunk' }>,
): ChatCompletionChunkView {
  return withProvenance(
    {
      id: head.id,
      object: 'chat.completion.chunk',
      created: head.created,
      model: head.model,
      provider: head.provider,
      service_tier: null,
      choices: event.choices.map(toChoiceView),
    },
    provenance,
  );
}

/** The last chunk when the client set `stream_options.include_usage`: no choices, the usage. */
export function usageChunkView(head: ChunkHead, provenance: ChunkProvenance, usage: ChatUsageView): ChatCompletionChunkView {
  return withProvenance(
    {
      id: head.id,
      object: 'chat.completion.chunk',
      created: head.created,
      model: head.model,
      provider: head.provider,
      service_tier: null,
      choices: [],
      usage,
    },
    provenance,
  );
}

/** A chunk without choices that carries streaming debug output (`debug` in the request). */
export function debugChunkView(head: ChunkHead, provenance: ChunkProvenance, debug: ChatStreamDebugView): ChatCompletionChunkView {
  return withProvenance(
    {
      id: head.id,
      object: 'chat.completion.chunk',
      created: head.created,
      model: head.model,
      provider: head.provider,
      service_tier: null,
      choices: [],
      debug,
    },
    provenance,
  );
}

function withProvenance(view: ChatCompletionChunkView, provenance: ChunkProvenance): ChatCompletionChunkView {
  view.service_tier = provenance.serviceTier;
  if (provenance.systemFingerprint !== null) view.system_fingerprint = provenance.systemFingerprint;
  return view;
}

function toChoiceView(choice: NormalizedChunkChoice): ChatChunkChoiceView {
  return {
    index: choice.index,
    delta: choice.delta,
    finish_reason: choice.finish_reason,
    native_finish_reason: choice.native_finish_reason,
    logprobs: choice.logprobs ?? null,
  };
}
