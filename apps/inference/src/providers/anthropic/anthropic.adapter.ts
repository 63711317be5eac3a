import { Injectable } from '@nestjs/common';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { withoutUnsupported } from '../../routing/parameter-support.js';
import { tierFor, wireTier } from '../../routing/service-tier.js';
import { UpstreamClient } from '../../upstream/upstream-client.js';
import { transportFailure } from '../../upstream/upstream-failure.js';
import type { ChatCallContext, NormalizedCompletion, NormalizedUsage, ProviderAdapter, StreamEvent } from '../provider-adapter.js';
import { anthropicErrorDetail } from './anthropic-errors.js';
import { buildAnthropicBody } from './anthropic-request.js';
import { normalizeAnthropicMessage, normalizeAnthropicUsage, type AnthropicMessageResponse } from './anthropic-response.js';
import { anthropicRawEvents, anthropicStreamEvents, type AnthropicStreamData } from './anthropic-stream.js';

/** The Messages API version this adapter speaks (sent as `anthropic-version`). */
export const ANTHROPIC_VERSION = '2023-06-01';

/** Anthropic's Messages API (`POST {baseUrl}/messages`), translated to and from chat completions. */
@Injectable()
export class AnthropicAdapter implements ProviderAdapter {
  constructor(private readonly upstream: UpstreamClient) {}

  async complete(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<NormalizedCompletion> {
    const { provider } = endpoint;
    const upstreamBody = anthropicBody(endpoint, body, context, false);
    const answer = await this.upstream.postOrFail(
      provider.id,
      `${provider.baseUrl}/messages`,
      headers(endpoint, context),
      JSON.stringify(upstreamBody),
      context.signal,
      anthropicErrorDetail,
    );
    const parsed = answer as AnthropicMessageResponse | undefined;
    if (!parsed || !Array.isArray(parsed.content)) throw transportFailure(provider.id, 'protocol', 'sent a malformed message');
    return normalizeAnthropicMessage(parsed, {
      excludeReasoning: excludesReasoning(body),
      promptText: () => JSON.stringify(upstreamBody.messages),
    });
  }

  /**
   * The `/v1/messages` front door on an Anthropic-format endpoint: the caller's Messages body
   * (already re-targeted, native-body.ts) goes out as it is and the answer comes back as it is.
   */
  async completeNative(
    endpoint: RoutableEndpoint,
    upstreamBody: Record<string, unknown>,
    context: ChatCallContext,
    betas: readonly string[] = [],
  ): Promise<NativeAnthropicMessage> {
    const { provider } = endpoint;
    const answer = await this.upstream.postOrFail(
      provider.id,
      `${provider.baseUrl}/messages`,
      headers(endpoint, context, betas),
      JSON.stringify(upstreamBody),
      context.signal,
      anthropicErrorDetail,
    );
    const parsed = answer as (AnthropicMessageResponse & Record<string, unknown>) | undefined;
    if (!parsed || !Array.isArray(parsed.content)) throw transportFailure(provider.id, 'protocol', 'sent a malformed message');
    const usage =
      normalizeAnthropicUsage(parsed.usage) ??
      normalizeAnthropicMessage(parsed, { excludeReasoning: false, promptText: () => JSON.stringify(upstreamBody.messages) }).usage;
    return { message: parsed, usage };
  }

  /** The streamed variant: Anthropic's own events, parsed, up to message_stop. */
  async streamNative(
    endpoint: RoutableEndpoint,
    upstreamBody: Record<string, unknown>,
    context: ChatCallContext,
    betas: readonly string[] = [],
  ): Promise<AsyncIterable<AnthropicStreamData>> {
    const { provider } = endpoint;
    context.onUpstreamBody?.(upstreamBody);
    const text = await this.upstream.postStream(
      provider.id,
      `${provider.baseUrl}/messages`,
      headers(endpoint, context, betas),
      JSON.stringify(upstreamBody),
      context.signal,
      anthropicErrorDetail,
    );
    return anthropicRawEvents(provider.id, text);
  }

  /**
   * Anthropic's own count of a Messages body's input tokens (`POST {baseUrl}/messages/count_tokens`),
   * for the `/v1/messages/count_tokens` front door.
   */
  async countTokensNative(
    endpoint: RoutableEndpoint,
    upstreamBody: Record<string, unknown>,
    context: ChatCallContext,
    betas: readonly string[],
  ): Promise<number> {
    const { provider } = endpoint;
    const answer = await this.upstream.postOrFail(
      provider.id,
      `${provider.baseUrl}/messages/count_tokens`,
      headers(endpoint, context, betas),
      JSON.stringify(upstreamBody),
      context.signal,
      anthropicErrorDetail,
    );
    const count = (answer as { input_tokens?: unknown } | undefined)?.input_tokens;
    if (typeof count !== 'number') throw transportFailure(provider.id, 'protocol', 'sent a malformed token count');
    return count;
  }

  async stream(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<AsyncIterable<StreamEvent>> {
    const { provider } = endpoint;
    const upstreamBody = anthropicBody(endpoint, body, context, true);
    context.onUpstreamBody?.(upstreamBody);
    const text = await this.upstream.postStream(
      provider.id,
      `${provider.baseUrl}/messages`,
      headers(endpoint, context),
      JSON.stringify(upstreamBody),
      context.signal,
      anthropicErrorDetail,
    );
    return anthropicStreamEvents(provider.id, text, { excludeReasoning: excludesReasoning(body) });
  }
}

/** A Messages API answer relayed as it is (the `/v1/messages` front door), with its usage normalised for pricing. */
export interface NativeAnthropicMessage {
  message: AnthropicMessageResponse & Record<string, unknown>;
  usage: NormalizedUsage;
}

/** A BYOK key (context.apiKey) wins over the catalog provider's key; the caller's betas go as one header. */
function headers(endpoint: RoutableEndpoint, context: ChatCallContext, betas: readonly string[] = []): Record<string, string> {
  const sent: Record<string, string> = { 'x-api-key': context.apiKey ?? endpoint.provider.apiKey, 'anthropic-version': ANTHROPIC_VERSION };
  if (betas.length > 0) sent['anthropic-beta'] = betas.join(',');
  return sent;
}

/** `reasoning.exclude: true`: the model still thinks, the answer carries no reasoning. */
export function excludesReasoning(body: Record<string, unknown>): boolean {
  const reasoning = body.reasoning as { exclude?: unknown } | null | undefined;
  return reasoning !== null && typeof reasoning === 'object' && reasoning.exclude === true;
}

/**
 * The Messages API body for this endpoint: the request without what the endpoint does not take
 * (filtered once), its tier in Anthropic's words (undefined when it takes none of the wanted ones).
 */
export function anthropicBody(
  endpoint: RoutableEndpoint,
  body: Record<string, unknown>,
  context: ChatCallContext,
  stream: boolean,
): Record<string, unknown> {
  const supported = withoutUnsupported(body, endpoint);
  const requested = supported.service_tier;
  const tier = typeof requested === 'string' ? tierFor(endpoint, requested) : undefined;
  return buildAnthropicBody(supported, endpoint.upstreamModel, {
    stream,
    endUserHash: context.endUserHash,
    serviceTier: tier === undefined ? undefined : wireTier('anthropic', tier),
  });
}
