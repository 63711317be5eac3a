import { Injectable } from '@nestjs/common';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { UpstreamClient, type UpstreamErrorDetail } from '../../upstream/upstream-client.js';
import { streamErrorFailure, transportFailure } from '../../upstream/upstream-failure.js';
import type { ChatCallContext, NormalizedCompletion, ProviderAdapter, StreamEvent } from '../provider-adapter.js';
import { buildResponsesBody } from './openai-responses-request.js';
import { normalizeResponsesObject, type ResponsesObject } from './openai-responses-response.js';
import { openAiResponsesStreamEvents } from './openai-responses-stream.js';
import { hostAuthHeaders } from '../openai/hosts/host-auth.js';
import { azureTarget } from '../azure/azure-target.js';
import { EntraAccessTokens } from '../azure/entra-access-tokens.js';

interface OpenAiErrorBody {
  error?: { message?: string; code?: string | null; type?: string };
}

/**
 * OpenAI's Responses API (`POST {baseUrl}/responses`, or Azure OpenAI's) for providers the
 * catalog marks `responsesApi`. It takes the pipeline's internal form (a chat-completions body)
 * and yields the same normalised completion and stream events as the chat adapters, so
 * routing, pricing and every front door treat it like any other wire format.
 */
@Injectable()
export class OpenAiResponsesAdapter implements ProviderAdapter {
  constructor(
    private readonly upstream: UpstreamClient,
    private readonly tokens: EntraAccessTokens,
  ) {}

  async complete(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<NormalizedCompletion> {
    const { provider } = endpoint;
    const target = await this.target(endpoint, context);
    const upstreamBody = buildResponsesBody(body, target.model, context.endUserHash, false);
    const answer = await this.upstream.postOrFail(
      provider.id,
      target.url,
      target.headers,
      JSON.stringify(upstreamBody),
      context.signal,
      responsesErrorDetail,
      target.tenantEndpoint,
    );
    const parsed = answer as ResponsesObject | undefined;
    if (!parsed || !Array.isArray(parsed.output)) throw transportFailure(provider.id, 'protocol', 'sent a malformed response');
    if (parsed.status === 'failed') throw streamErrorFailure(provider.id, { message: parsed.error?.message, code: parsed.error?.code });
    return normalizeResponsesObject(parsed, () => JSON.stringify(body.messages ?? ''));
  }

  async stream(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<AsyncIterable<StreamEvent>> {
    const { provider } = endpoint;
    const target = await this.target(endpoint, context);
    const upstreamBody = buildResponsesBody(body, target.model, context.endUserHash, true);
    context.onUpstreamBody?.(upstreamBody);
    const text = await this.upstream.postStream(
      provider.id,
      target.url,
      target.headers,
      JSON.stringify(upstreamBody),
      context.signal,
      undefined,
      target.tenantEndpoint,
    );
    return openAiResponsesStreamEvents(provider.id, text);
  }

  /**
   * `{baseUrl}/responses` with the provider's auth kind and headers (a BYOK key wins over the
   * catalog's), or Azure's Responses API with its api-key or Entra ID token, the deployment as model.
   */
  private async target(
    endpoint: RoutableEndpoint,
    context: ChatCallContext,
  ): Promise<{ url: string; headers: Record<string, string>; model: string; tenantEndpoint: boolean }> {
    const { provider } = endpoint;
    if (provider.format === 'azure') {
      const azure = await azureTarget(endpoint, context, 'responses', this.tokens);
      return { url: azure.url, headers: azure.headers, model: azure.deployment, tenantEndpoint: azure.tenantEndpoint };
    }
    return {
      url: `${provider.baseUrl}/responses`,
      headers: hostAuthHeaders(provider, context.apiKey ?? provider.apiKey),
      model: endpoint.upstreamModel,
      tenantEndpoint: endpoint.tenant === true,
    };
  }
}

/** The Responses API's `{error: {message, code}}`, taken as it is. */
function responsesErrorDetail(body: unknown): UpstreamErrorDetail {
  const error = (body as OpenAiErrorBody | undefined)?.error;
  return { message: error?.message, code: error?.code ?? undefined };
}
