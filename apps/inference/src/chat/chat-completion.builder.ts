import type { ChatCompletionView } from '@gw/contracts';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';
import type { Cost } from '../pricing/cost.js';
import type { NormalizedCompletion } from '../providers/provider-adapter.js';

/** The spec §2.1 chat completion, from a provider's normalised answer and its cost. */
export function buildChatCompletion(input: {
  id: string;
  modelId: string;
  endpoint: RoutableEndpoint;
  completion: NormalizedCompletion;
  cost: Cost;
  isByok: boolean;
}): ChatCompletionView {
  const { completion, cost } = input;
  const { usage } = completion;
  return {
    id: input.id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: input.modelId,
    provider: input.endpoint.provider.name,
    system_fingerprint: completion.systemFingerprint,
    service_tier: completion.serviceTier,
    choices: completion.choices,
    usage: {
      prompt_tokens: usage.promptTokens,
      completion_tokens: usage.completionTokens,
      total_tokens: usage.promptTokens + usage.completionTokens,
      prompt_tokens_details: { cached_tokens: usage.cachedTokens },
      completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
      cost: cost.total.toNumber(),
      is_byok: input.isByok,
      cost_details: {
        upstream_inference_cost: input.isByok ? cost.total.toNumber() : null,
        upstream_inference_prompt_cost: cost.input.toNumber(),
        upstream_inference_completions_cost: cost.output.toNumber(),
        upstream_inference_input_cost: cost.input.toNumber(),
        upstream_inference_output_cost: cost.output.toNumber(),
      },
    },
  };
}
