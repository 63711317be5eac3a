import type { EmbeddingsRequestDto, EmbeddingsView, ModelView } from '@gw/contracts';
import { GatewayError } from '@gw/errors';

const EMBED_FIELDS = new Set(['model', 'content', 'taskType', 'title', 'outputDimensionality']);

/** The text of an EmbedContentRequest's content (text parts only), checked as Google checks the fields. */
function embedTextOf(request: Record<string, unknown>, where: string): { text: string; dimensions?: number } {
  const unknown = Object.keys(request).find((field) => !EMBED_FIELDS.has(field));
  if (unknown) throw GatewayError.badRequest(`${where}.${unknown} is not supported`, { param: unknown });
  const content = request.content as { parts?: unknown } | undefined;
  const parts = Array.isArray(content?.parts) ? (content.parts as Array<Record<string, unknown>>) : [];
  if (parts.length === 0 || parts.some((part) => typeof part?.text !== 'string'))
    throw GatewayError.badRequest(`${where}.content must hold text parts only`, { param: 'content' });
  const dimensions = request.outputDimensionality;
  if (dimensions !== undefined && (typeof dimensions !== 'number' || !Number.isInteger(dimensions) || dimensions < 1))
    throw GatewayError.badRequest(`${where}.outputDimensionality must be a positive integer`, { param: 'outputDimensionality' });
  return { text: parts.map((part) => part.text as string).join(' '), dimensions };
}

/**
 * embedContent / batchEmbedContents as the embeddings body of spec §2.1 (one input per
 * request, in order). `taskType` and `title` tune Google's own embedding models only: the
 * embeddings pipeline has no such field, so they are refused rather than dropped.
 */
export function embedRequestOf(model: string, method: string, body: Record<string, unknown>): EmbeddingsRequestDto {
  let requests: Array<Record<string, unknown>> = [body];
  if (method !== 'embedContent') {
    if (!Array.isArray(body.requests) || body.requests.length === 0)
      throw GatewayError.badRequest('requests must be a non-empty list', { param: 'requests' });
    requests = body.requests as Array<Record<string, unknown>>;
  }
  if (method !== 'embedContent' && Object.keys(body).some((field) => field !== 'requests'))
    throw GatewayError.badRequest('batchEmbedContents takes requests only', { param: 'requests' });
  const inputs = requests.map((request, i) => {
    if (request.taskType !== undefined || request.title !== undefined)
      throw GatewayError.badRequest('taskType and title are not supported by this gateway', { param: 'taskType' });
    return embedTextOf(request, method === 'embedContent' ? 'body' : `requests[${i}]`);
  });
  const dimensions = new Set(inputs.map((input) => input.dimensions));
  if (dimensions.size > 1)
    throw GatewayError.badRequest('Every request must ask for the same outputDimensionality', { param: 'outputDimensionality' });
  const embedBody: EmbeddingsRequestDto = { model, input: inputs.map((input) => input.text), encoding_format: 'float' };
  const [wanted] = dimensions;
  if (wanted !== undefined) embedBody.dimensions = wanted;
  return embedBody;
}

export function geminiEmbeddingsOf(method: string, answer: EmbeddingsView): Record<string, unknown> {
  const embeddings = [...answer.data]
    .sort((a, b) => a.index - b.index)
    .map((item) => {
      if (!Array.isArray(item.embedding)) throw new GatewayError(502, 'The embeddings came back encoded', { errorType: 'server' });
      return { values: item.embedding };
    });
  return method === 'embedContent' ? { embedding: embeddings[0] } : { embeddings };
}

/** A catalog model in Gemini's Model shape (`name: models/{id}`). */
export function geminiModelOf(model: ModelView): Record<string, unknown> {
  const embeddings = model.architecture.output_modalities.includes('embeddings');
  return {
    name: `models/${model.id}`,
    baseModelId: model.id,
    version: '1',
    displayName: model.name,
    inputTokenLimit: model.context_length,
    outputTokenLimit: model.top_provider.max_completion_tokens ?? model.context_length,
    supportedGenerationMethods: embeddings ? ['embedContent', 'batchEmbedContents'] : ['generateContent', 'streamGenerateContent'],
  };
}
