import type { EmbeddingsView } from '@gw/contracts';
import type { Charge } from '../pricing/charge.js';
import type { NormalizedUsage } from '../providers/provider-adapter.js';
import type { UpstreamEmbeddings } from './openai-embeddings.client.js';

/**
 * The spec §2.1 embeddings body. Vectors pass through as the provider sent them: a float
 * array, or the base64 string of little-endian float32s when `encoding_format: "base64"`.
 */
export function buildEmbeddingsView(input: {
  id: string;
  modelId: string;
  provider: string;
  result: UpstreamEmbeddings;
  usage: NormalizedUsage;
  charge: Charge;
}): EmbeddingsView {
  const { charge, usage } = input;
  const { upstream } = charge;
  return {
    object: 'list',
    id: input.id,
    model: input.modelId,
    provider: input.provider,
    data: input.result.data.map((item, position) => ({ object: 'embedding', embedding: item.embedding, index: item.index ?? position })),
    usage: {
      prompt_tokens: usage.promptTokens,
      total_tokens: usage.promptTokens,
      cost: charge.charged.toNumber(),
      is_byok: charge.isByok,
      cost_details: {
        upstream_inference_cost: charge.isByok ? upstream.total.toNumber() : null,
        upstream_inference_prompt_cost: upstream.input.toNumber(),
        upstream_inference_completions_cost: 0,
        upstream_inference_input_cost: upstream.input.toNumber(),
        upstream_inference_output_cost: 0,
      },
    },
  };
}
