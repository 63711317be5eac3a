import { Injectable } from '@nestjs/common';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { withoutUnsupported } from '../../routing/parameter-support.js';
import { UpstreamClient } from '../../upstream/upstream-client.js';
import { transportFailure } from '../../upstream/upstream-failure.js';
import type { ChatCallContext, NormalizedCompletion, ProviderAdapter, StreamEvent } from '../provider-adapter.js';
import { hostAuthHeaders } from './hosts/host-auth.js';
import { adaptRequestToHost } from './hosts/host-request.js';
import { citationAnnotations, compatErrorDetail, hostUsage } from './hosts/host-response.js';
import { hostProfile } from './hosts/openai-hosts.js';
import { buildOpenAiChatBody, buildOpenAiStreamBody } from './openai-request.js';
import { normalizeOpenAiResponse, type OpenAiChatResponse } from './openai-response.js';
import { openAiStreamEvents } from './openai-stream.js';

/**
 * OpenAI's chat-completions wire format, spoken by OpenAI and the compatible hosts the catalog
 * names (`providers[].host`): each host's profile (hosts/openai-hosts.ts) reshapes the request
 * and reads its usage, citations and error bodies; the codec stays OpenAI's.
 */
@Injectable()
export class OpenAiAdapter implements ProviderAdapter {
  constructor(private readonly upstream: UpstreamClient) {}

  async complete(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<NormalizedCompletion> {
    const { provider } = endpoint;
    const profile = hostProfile(provider.host);
    const upstreamBody = forHost(endpoint, buildOpenAiChatBody(body, endpoint, context.endUserHash, context.sessionCacheKey), body);
    const answer = await this.upstream.postOrFail(
      provider.id,
      `${provider.baseUrl}/chat/completions`,
      hostAuthHeaders(provider, context.apiKey ?? provider.apiKey),
      JSON.stringify(upstreamBody),
      context.signal,
      compatErrorDetail,
      endpoint.tenant === true,
    );
    const parsed = answer as (OpenAiChatResponse & Record<string, unknown>) | undefined;
    if (!parsed || !Array.isArray(parsed.choices)) throw transportFailure(provider.id, 'protocol', 'sent a malformed completion');
    const annotations = citationAnnotations(parsed);
    for (const choice of parsed.choices) {
      const message = choice.message;
      if (annotations.length > 0 && message && !(Array.isArray(message.annotations) && message.annotations.length > 0))
        message.annotations = annotations;
    }
    return normalizeOpenAiResponse(
      parsed,
      () => JSON.stringify(body.messages ?? ''),
      (usage) => hostUsage(profile, usage),
    );
  }

  async stream(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<AsyncIterable<StreamEvent>> {
    const { provider } = endpoint;
    const profile = hostProfile(provider.host);
    const upstreamBody = forHost(endpoint, buildOpenAiStreamBody(body, endpoint, context.endUserHash, context.sessionCacheKey), body);
    context.onUpstreamBody?.(upstreamBody);
    const text = await this.upstream.postStream(
      provider.id,
      `${provider.baseUrl}/chat/completions`,
      hostAuthHeaders(provider, context.apiKey ?? provider.apiKey),
      JSON.stringify(upstreamBody),
      context.signal,
      compatErrorDetail,
      endpoint.tenant === true,
    );
    return openAiStreamEvents(provider.id, text, { usage: (usage) => hostUsage(profile, usage), citations: citationAnnotations });
  }
}

/** OpenAI itself gets the body as built; a named host gets it through its profile. */
function forHost(endpoint: RoutableEndpoint, built: Record<string, unknown>, original: Record<string, unknown>): Record<string, unknown> {
  const host = endpoint.provider.host;
  if (host === undefined || host === 'openai') return built;
  // The host sees only what the endpoint takes (OpenRouter's `reasoning` object comes from here).
  return adaptRequestToHost(built, hostProfile(host), endpoint.upstreamModel, withoutUnsupported(original, endpoint));
}
