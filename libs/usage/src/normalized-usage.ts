/** Token counts as a provider reported them (or as estimated when it reported none). */
export interface NormalizedUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  /** Tokens written to the provider's prompt cache (Anthropic's cache_creation_input_tokens). */
  cacheWriteTokens?: number;
  reasoningTokens: number;
  /** Prompt tokens by modality, when the provider reported them (all part of promptTokens). */
  promptAudioTokens?: number;
  promptFileTokens?: number;
  promptVideoTokens?: number;
  /** Completion tokens by modality, when the provider reported them (part of completionTokens). */
  completionAudioTokens?: number;
  completionImageTokens?: number;
  /** Server-side tools the provider ran (Anthropic's web search, OpenRouter-style hosts). */
  serverToolUse?: ServerToolUse;
  /** True when the provider reported no counts and they were estimated. */
  estimated: boolean;
  /** An estimated completion: the characters it was estimated from, and the maximum it was cut to when above it. */
  estimatedFromCharacters?: number;
  estimateCappedAt?: number;
}

/** Spec §2.1 server_tool_use: a server-run web search counts in both requested and web_search_requests. */
export interface ServerToolUse {
  toolCallsExecuted: number | null;
  toolCallsRequested: number | null;
  webSearchRequests: number | null;
}
