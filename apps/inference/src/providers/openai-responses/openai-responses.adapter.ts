import { Injectable } from '@nestjs/common';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { UpstreamClient, type UpstreamErrorDetail } from '../../upstream/upstream-client.js';
import { streamErrorFailure, transportFailure } from '../../upstream/upstream-failure.js';
import type { ChatCallContext, NormalizedCompletion, ProviderAdapter, StreamEvent } from '../provider-adapter.js';
import { buildResponsesBody } from './openai-responses-request.js';
import { normalizeResponsesObject, type ResponsesObject } from './openai-responses-response.js';
import { openAiResponsesStreamEvents } from './openai-responses-stream.js';
import { hostAuthHeaders } from '../openai/hosts/host-auth.js';

interface OpenAiErrorBody {
  error?: { message?: string; code?: string | null; type?: string };
}

/**
 * OpenAI's Responses API (`POST {baseUrl}/responses`) for providers the catalog marks
 * `responsesApi` (ADR 0023). It takes the pipeline's internal form (a chat-completions body)
 * and yields the same normalised completion and stream events as the chat adapters, so
 * routing, pricing and every front door treat it like any other wire format.
 */
@Injectable()
export class OpenAiResponsesAdapter implements ProviderAdapter {
  constructor(private readonly upstream: UpstreamClient) {}

  async complete(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<NormalizedCompletion> {
    const { provider } = endpoint;
    const upstreamBody = buildResponsesBody(body, endpoint.upstreamModel, context.endUserHash, false);
    const answer = await this.upstream.postOrFail(
      provider.id,
      `${provider.baseUrl}/responses`,
      authorization(endpoint, context),
      JSON.stringify(upstreamBody),
      context.signal,
      responsesErrorDetail,
    );
    const parsed = answer as ResponsesObject | undefined;
    if (!parsed || !Array.isArray(parsed.output)) throw transportFailure(provider.id, 'protocol', 'sent a malformed response');
    if (parsed.status === 'failed') throw streamErrorFailure(provider.id, { message: parsed.error?.message, code: parsed.error?.code });
    return normalizeResponsesObject(parsed, () => JSON.stringify(body.messages ?? ''));
  }

  async stream(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<AsyncIterable<StreamEvent>> {
    const { provider } = endpoint;
    const upstreamBody = buildResponsesBody(body, endpoint.upstreamModel, context.endUserHash, true);
    context.onUpstreamBody?.(upstreamBody);
    const text = await this.upstream.postStream(
      provider.id,
      `${provider.baseUrl}/responses`,
      authorization(endpoint, context),
      JSON.stringify(upstreamBody),
      context.signal,
    );
    return openAiResponsesStreamEvents(provider.id, text);
  }
}

/** A BYOK key (context.apiKey) wins over the catalog provider's key; the provider's auth kind and headers apply. */
function authorization(endpoint: RoutableEndpoint, context: ChatCallContext): Record<string, string> {
  return hostAuthHeaders(endpoint.provider, context.apiKey ?? endpoint.provider.apiKey);
}

/** The Responses API's `{error: {message, code}}`, taken as it is. */
function responsesErrorDetail(body: unknown): UpstreamErrorDetail {
  const error = (body as OpenAiErrorBody | undefined)?.error;
  return { message: error?.message, code: error?.code ?? undefined };
}
