import type { NormalizedCompletion } from '../providers/provider-adapter.js';

/** How a generation ended, kept on its record: what the answer said, nothing guessed. */
export interface GenerationFinish {
  finishReason?: string | null;
  nativeFinishReason?: string | null;
  upstreamId?: string | null;
  serviceTier?: string | null;
  /** The client went away before the end. */
  cancelled?: boolean;
}

/** A whole answer's ending: its first choice's finish reasons, the provider's id and service tier. */
export function finishOfCompletion(completion: Pick<NormalizedCompletion, 'choices' | 'upstreamId' | 'serviceTier'>): GenerationFinish {
  const first = completion.choices[0];
  return {
    finishReason: first?.finish_reason ?? null,
    nativeFinishReason: first?.native_finish_reason ?? null,
    upstreamId: completion.upstreamId,
    serviceTier: completion.serviceTier,
  };
}
