import { Injectable } from '@nestjs/common';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { UpstreamClient } from '../../upstream/upstream-client.js';
import { httpFailure, transportFailure } from '../../upstream/upstream-failure.js';
import type { ChatCallContext, NormalizedCompletion, ProviderAdapter, StreamEvent } from '../provider-adapter.js';
import { buildOpenAiChatBody, buildOpenAiStreamBody } from './openai-request.js';
import { normalizeOpenAiResponse, type OpenAiChatResponse } from './openai-response.js';
import { openAiStreamEvents } from './openai-stream.js';

interface OpenAiErrorBody {
  error?: { message?: string; code?: string | null; type?: string };
}

/** OpenAI's chat-completions wire format, spoken by OpenAI and many compatible hosts. */
@Injectable()
export class OpenAiAdapter implements ProviderAdapter {
  constructor(private readonly upstream: UpstreamClient) {}

  async complete(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<NormalizedCompletion> {
    const { provider } = endpoint;
    const upstreamBody = buildOpenAiChatBody(body, endpoint, context.endUserHash, context.sessionCacheKey);
    const response = await this.upstream.postJson(
      provider.id,
      `${provider.baseUrl}/chat/completions`,
      authorization(endpoint, context),
      JSON.stringify(upstreamBody),
      context.signal,
    );
    if (response.status >= 400) {
      const error = (response.body as OpenAiErrorBody | undefined)?.error;
      throw httpFailure(provider.id, response.status, error?.message, error?.code ?? undefined, response.retryAfterMs);
    }
    const parsed = response.body as OpenAiChatResponse | undefined;
    if (!parsed || !Array.isArray(parsed.choices)) throw transportFailure(provider.id, 'protocol', 'sent a malformed completion');
    return normalizeOpenAiResponse(parsed, () => JSON.stringify(body.messages ?? ''));
  }

  async stream(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<AsyncIterable<StreamEvent>> {
    const { provider } = endpoint;
    const upstreamBody = buildOpenAiStreamBody(body, endpoint, context.endUserHash, context.sessionCacheKey);
    context.onUpstreamBody?.(upstreamBody);
    const text = await this.upstream.postStream(
      provider.id,
      `${provider.baseUrl}/chat/completions`,
      authorization(endpoint, context),
      JSON.stringify(upstreamBody),
      context.signal,
    );
    return openAiStreamEvents(provider.id, text);
  }
}

/** A BYOK key (context.apiKey) wins over the catalog provider's key. */
function authorization(endpoint: RoutableEndpoint, context: ChatCallContext): Record<string, string> {
  return { authorization: `Bearer ${context.apiKey ?? endpoint.provider.apiKey}` };
}
