import type { ChatChoiceView } from '@gw/contracts';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';

/** A provider's answer, normalised to the chat-completions shape before pricing. */
export interface NormalizedCompletion {
  upstreamId: string | null;
  systemFingerprint: string | null;
  serviceTier: string | null;
  choices: ChatChoiceView[];
  usage: {
    promptTokens: number;
    completionTokens: number;
    cachedTokens: number;
    reasoningTokens: number;
    /** True when the provider reported no counts and they were estimated. */
    estimated: boolean;
  };
}

export interface ChatCallContext {
  /** Workspace-scoped hash of the end-user id, never the raw id (issue 4). */
  endUserHash?: string;
  signal?: AbortSignal;
}

/** One provider wire format (OpenAI-compatible, Anthropic, ...). */
export interface ProviderAdapter {
  complete(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<NormalizedCompletion>;
}
