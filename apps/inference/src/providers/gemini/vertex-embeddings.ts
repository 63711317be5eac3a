import { Injectable } from '@nestjs/common';
import { GatewayError } from '@gw/errors';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import type { UpstreamEmbeddings } from '../../embeddings/openai-embeddings.client.js';
import { ROUTING_FIELDS } from '../../routing/provider-preferences.js';
import { UpstreamClient } from '../../upstream/upstream-client.js';
import { transportFailure } from '../../upstream/upstream-failure.js';
import type { ChatCallContext } from '../provider-adapter.js';
import { VertexAdapter } from './gemini.adapter.js';
import { googleErrorDetail } from './gemini-errors.js';

const FIELDS = new Set(['model', 'input', 'dimensions', 'encoding_format', 'user', ...ROUTING_FIELDS]);
/** Instances per `:predict` call Vertex takes: 250 on the text-embedding models, one on gemini-embedding ones. */
const BATCH = 250;

interface Prediction {
  embeddings?: { values?: unknown; statistics?: { token_count?: unknown } };
}

/**
 * Spec §2.1 embeddings on Vertex AI: `:predict` on a text-embedding model with the service
 * account's token (`{instances: [{content}], parameters: {outputDimensionality}}`), inputs in
 * calls of 250 (one a call on gemini-embedding models, as Vertex demands). Unlike the Gemini API,
 * Vertex counts each input's tokens (`statistics.token_count`): their sum is the usage.
 */
@Injectable()
export class VertexEmbeddings {
  constructor(
    private readonly upstream: UpstreamClient,
    private readonly vertex: VertexAdapter,
  ) {}

  async create(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<UpstreamEmbeddings> {
    const { provider } = endpoint;
    const unknown = Object.keys(body).find((field) => !FIELDS.has(field));
    if (unknown) throw GatewayError.badRequest(`${unknown} is not supported by this model's provider (Vertex AI)`, { param: unknown });
    const inputs = typeof body.input === 'string' ? [body.input] : Array.isArray(body.input) ? body.input : [];
    if (inputs.length === 0 || inputs.some((input) => typeof input !== 'string' || input === ''))
      throw GatewayError.badRequest("input must be a non-empty string or strings for this model's provider (Vertex AI)", {
        param: 'input',
      });
    const target = await this.vertex.target(endpoint, context);
    const size = endpoint.upstreamModel.startsWith('gemini-embedding') ? 1 : BATCH;
    const parameters = typeof body.dimensions === 'number' ? { parameters: { outputDimensionality: body.dimensions } } : {};
    const predictions: Prediction[] = [];
    for (let start = 0; start < inputs.length; start += size) {
      const instances = (inputs.slice(start, start + size) as string[]).map((content) => ({ content }));
      const answer = await this.upstream.postOrFail(
        provider.id,
        `${target.modelUrl}:predict`,
        target.headers,
        JSON.stringify({ instances, ...parameters }),
        context.signal,
        googleErrorDetail,
      );
      const batch = (answer as { predictions?: Prediction[] } | undefined)?.predictions;
      if (!Array.isArray(batch) || batch.length !== instances.length || batch.some((p) => !Array.isArray(p?.embeddings?.values)))
        throw transportFailure(provider.id, 'protocol', 'sent malformed embeddings');
      predictions.push(...batch);
    }
    const counts = predictions.map((p) => p.embeddings?.statistics?.token_count);
    const base64 = body.encoding_format === 'base64';
    return {
      data: predictions.map((prediction, index) => {
        const values = prediction.embeddings!.values as number[];
        return { index, embedding: base64 ? Buffer.from(new Float32Array(values).buffer).toString('base64') : values };
      }),
      usage: counts.every((count) => typeof count === 'number')
        ? { prompt_tokens: (counts as number[]).reduce((sum, count) => sum + count, 0) }
        : null,
    };
  }
}
