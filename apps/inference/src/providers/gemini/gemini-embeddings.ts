import { Injectable } from '@nestjs/common';
import { GatewayError } from '@gw/errors';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import type { UpstreamEmbeddings } from '../../embeddings/openai-embeddings.client.js';
import { UpstreamClient } from '../../upstream/upstream-client.js';
import { transportFailure } from '../../upstream/upstream-failure.js';
import { ROUTING_FIELDS } from '../../routing/provider-preferences.js';
import type { ChatCallContext } from '../provider-adapter.js';
import { googleErrorDetail } from './gemini-errors.js';

/** The embeddings fields the Gemini API has a counterpart for (routing fields never reach an adapter). */
const FIELDS = new Set(['model', 'input', 'dimensions', 'encoding_format', 'user', ...ROUTING_FIELDS]);

/**
 * Spec §2.1 embeddings on the Gemini API: `POST {baseUrl}/models/{model}:batchEmbedContents`,
 * one request per input, `dimensions` as `outputDimensionality`. Gemini reports no token count
 * (the service estimates it); base64 is the float32 bytes OpenAI sends. The end user (kept
 * in the gateway's records) has no Gemini field; token-array inputs have no Gemini form and are refused.
 */
@Injectable()
export class GeminiEmbeddings {
  constructor(private readonly upstream: UpstreamClient) {}

  async create(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<UpstreamEmbeddings> {
    const { provider } = endpoint;
    const unknown = Object.keys(body).find((field) => !FIELDS.has(field));
    if (unknown) throw GatewayError.badRequest(`${unknown} is not supported by this model's provider (Gemini)`, { param: unknown });
    const inputs = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? body.input : [];
    if (inputs.length === 0 || inputs.some((input) => typeof input !== 'string'))
      throw GatewayError.badRequest("input must be a string or strings for this model's provider (Gemini)", { param: 'input' });
    const model = `models/${endpoint.upstreamModel}`;
    const requests = (inputs as string[]).map((text) => ({
      model,
      content: { parts: [{ text }] },
      ...(typeof body.dimensions === 'number' ? { outputDimensionality: body.dimensions } : {}),
    }));
    const answer = await this.upstream.postOrFail(
      provider.id,
      `${provider.baseUrl}/${model}:batchEmbedContents`,
      { 'x-goog-api-key': context.apiKey ?? provider.apiKey },
      JSON.stringify({ requests }),
      context.signal,
      googleErrorDetail,
    );
    const embeddings = (answer as { embeddings?: Array<{ values?: unknown }> } | undefined)?.embeddings;
    if (!Array.isArray(embeddings) || embeddings.length !== inputs.length || embeddings.some((e) => !Array.isArray(e?.values)))
      throw transportFailure(provider.id, 'protocol', 'sent malformed embeddings');
    const base64 = body.encoding_format === 'base64';
    return {
      data: embeddings.map((embedding, index) => {
        const values = embedding.values as number[];
        return { index, embedding: base64 ? Buffer.from(new Float32Array(values).buffer).toString('base64') : values };
      }),
      usage: null,
    };
  }
}
