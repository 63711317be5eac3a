import { Injectable } from '@nestjs/common';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';
import type { ProviderFormat } from '../catalog/catalog.schema.js';
import { AnthropicAdapter } from './anthropic/anthropic.adapter.js';
import { AzureOpenAiAdapter } from './azure/azure.adapter.js';
import { BedrockAdapter } from './bedrock/bedrock.adapter.js';
import { GeminiAdapter, VertexAdapter } from './gemini/gemini.adapter.js';
import { OpenAiResponsesAdapter } from './openai-responses/openai-responses.adapter.js';
import { OpenAiAdapter } from './openai/openai.adapter.js';
import type { ProviderAdapter } from './provider-adapter.js';

/**
 * Which upstream API a front door prefers where an endpoint offers a choice: `chat` (chat
 * completions, or the Messages API for Anthropic-format providers) or `responses` (OpenAI's
 * Responses API on providers the catalog marks `responsesApi`, chat otherwise).
 */
export type UpstreamApi = 'chat' | 'responses';

/** The adapter for each wire format of the catalog (`providers[].format`). */
@Injectable()
export class AdapterRegistry {
  private readonly adapters: Record<ProviderFormat, ProviderAdapter>;

  constructor(
    openAi: OpenAiAdapter,
    anthropic: AnthropicAdapter,
    private readonly openAiResponses: OpenAiResponsesAdapter,
    bedrock: BedrockAdapter,
    azure: AzureOpenAiAdapter,
    gemini: GeminiAdapter,
    vertex: VertexAdapter,
  ) {
    this.adapters = { openai: openAi, anthropic, bedrock, azure, gemini, vertex };
  }

  for(format: ProviderFormat): ProviderAdapter {
    return this.adapters[format];
  }

  /** The adapter that calls this endpoint for a front door that prefers `api`. */
  forEndpoint(endpoint: RoutableEndpoint, api: UpstreamApi): ProviderAdapter {
    if (api === 'responses' && endpoint.provider.responsesApi === true) return this.openAiResponses;
    return this.adapters[endpoint.provider.format];
  }
}
