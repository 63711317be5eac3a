import { InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import { Injectable } from '@nestjs/common';
import { GatewayError } from '@gw/errors';
import { markCommitted } from '@gw/messaging';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import type { UpstreamEmbeddings } from '../../embeddings/openai-embeddings.client.js';
import { transportFailure } from '../../upstream/upstream-failure.js';
import type { ChatCallContext } from '../provider-adapter.js';
import { BedrockClients } from './bedrock-clients.js';
import { bedrockFailure } from './bedrock-errors.js';

/** Most texts embedded at once for one request: Titan takes one text a call. */
const MAX_INPUTS = 128;

/**
 * Titan Text Embeddings (`amazon.titan-embed-text-v2:0`) through InvokeModel, whose body is
 * Titan's own: one `inputText` a call, so a list of inputs is one call each (in parallel), answered
 * in OpenAI's embeddings shape with the token counts Titan reports summed.
 */
@Injectable()
export class BedrockEmbeddings {
  constructor(private readonly clients: BedrockClients) {}

  async create(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<UpstreamEmbeddings> {
    const { provider } = endpoint;
    const inputs = textInputs(body.input);
    if (body.encoding_format !== undefined && body.encoding_format !== 'float' && body.encoding_format !== 'base64')
      throw GatewayError.badRequest('encoding_format must be "float" or "base64"');
    const titan: Record<string, unknown> = { normalize: true };
    if (body.dimensions !== undefined) titan.dimensions = body.dimensions;
    const client = this.clients.for(provider, context.apiKey);
    markCommitted();
    const answers = await Promise.all(
      inputs.map(async (inputText) => {
        let output;
        try {
          output = await client.send(
            new InvokeModelCommand({
              modelId: endpoint.upstreamModel,
              contentType: 'application/json',
              accept: 'application/json',
              body: JSON.stringify({ inputText, ...titan }),
            }),
            { abortSignal: context.signal },
          );
        } catch (error) {
          throw bedrockFailure(provider.id, error);
        }
        const parsed = JSON.parse(Buffer.from(output.body).toString('utf8')) as { embedding?: unknown; inputTextTokenCount?: unknown };
        if (!Array.isArray(parsed.embedding)) throw transportFailure(provider.id, 'protocol', 'sent malformed embeddings');
        return {
          embedding: parsed.embedding as number[],
          tokens: typeof parsed.inputTextTokenCount === 'number' ? parsed.inputTextTokenCount : 0,
        };
      }),
    );
    const base64 = body.encoding_format === 'base64';
    return {
      data: answers.map((answer, index) => ({
        index,
        embedding: base64 ? Buffer.from(new Float32Array(answer.embedding).buffer).toString('base64') : answer.embedding,
      })),
      usage: { prompt_tokens: answers.reduce((sum, answer) => sum + answer.tokens, 0) },
    };
  }
}

function textInputs(input: unknown): string[] {
  const list = typeof input === 'string' ? [input] : Array.isArray(input) ? input : undefined;
  if (!list || list.length === 0 || !list.every((item): item is string => typeof item === 'string' && item !== '')) {
    throw GatewayError.badRequest(
      "input must be a text or a list of texts for this model's provider (Bedrock Titan takes no token arrays)",
    );
  }
  if (list.length > MAX_INPUTS) throw GatewayError.badRequest(`input may hold at most ${MAX_INPUTS} texts for this model's provider`);
  return list;
}
