import type { ChatCompletionView } from '@gw/contracts';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';
import type { Cost } from '../pricing/cost.js';
import type { NormalizedCompletion } from '../providers/provider-adapter.js';
import { buildUsageView } from './usage-view.js';

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
  return {
    id: input.id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: input.modelId,
    provider: input.endpoint.provider.name,
    system_fingerprint: completion.systemFingerprint,
    service_tier: completion.serviceTier,
    choices: completion.choices,
    usage: buildUsageView(completion.usage, cost, input.isByok),
  };
}
