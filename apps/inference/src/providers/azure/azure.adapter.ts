import { Injectable } from '@nestjs/common';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { openAiErrorDetail, UpstreamClient } from '../../upstream/upstream-client.js';
import { transportFailure } from '../../upstream/upstream-failure.js';
import { buildOpenAiChatBody, buildOpenAiStreamBody } from '../openai/openai-request.js';
import { normalizeOpenAiResponse, type OpenAiChatResponse } from '../openai/openai-response.js';
import { openAiStreamEvents } from '../openai/openai-stream.js';
import type { ChatCallContext, NormalizedCompletion, ProviderAdapter, StreamEvent } from '../provider-adapter.js';
import { azureTarget } from './azure-target.js';
import { EntraAccessTokens } from './entra-access-tokens.js';

/**
 * Azure OpenAI: OpenAI's chat-completions wire format (the OpenAI codec, unchanged) at Azure's
 * URLs with Azure's `api-key` or a Microsoft Entra ID token. Azure's content filter speaks OpenAI's words too: a filtered
 * answer ends with finish_reason `content_filter`, a filtered prompt is a 400 whose code is
 * `content_filter`, both mapped like OpenAI's.
 */
@Injectable()
export class AzureOpenAiAdapter implements ProviderAdapter {
  constructor(
    private readonly upstream: UpstreamClient,
    private readonly tokens: EntraAccessTokens,
  ) {}

  async complete(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<NormalizedCompletion> {
    const { provider } = endpoint;
    const target = await azureTarget(endpoint, context, 'chat/completions', this.tokens);
    const upstreamBody = { ...buildOpenAiChatBody(body, endpoint, context.endUserHash, context.sessionCacheKey), model: target.deployment };
    const answer = await this.upstream.postOrFail(
      provider.id,
      target.url,
      target.headers,
      JSON.stringify(upstreamBody),
      context.signal,
      openAiErrorDetail,
      target.tenantEndpoint,
    );
    const parsed = answer as OpenAiChatResponse | undefined;
    if (!parsed || !Array.isArray(parsed.choices)) throw transportFailure(provider.id, 'protocol', 'sent a malformed completion');
    return normalizeOpenAiResponse(parsed, () => JSON.stringify(body.messages ?? ''));
  }

  async stream(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<AsyncIterable<StreamEvent>> {
    const { provider } = endpoint;
    const target = await azureTarget(endpoint, context, 'chat/completions', this.tokens);
    const upstreamBody = {
      ...buildOpenAiStreamBody(body, endpoint, context.endUserHash, context.sessionCacheKey),
      model: target.deployment,
    };
    context.onUpstreamBody?.(upstreamBody);
    const text = await this.upstream.postStream(
      provider.id,
      target.url,
      target.headers,
      JSON.stringify(upstreamBody),
      context.signal,
      openAiErrorDetail,
      target.tenantEndpoint,
    );
    return openAiStreamEvents(provider.id, text);
  }
}
