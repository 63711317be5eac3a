import type { ChatCompletionView, ServiceMetadataView } from '@gw/contracts';
import type { Prisma } from '../generated/prisma/client.js';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';
import type { Cost } from '../pricing/cost.js';
import type { NormalizedCompletion } from '../providers/provider-adapter.js';
import { buildUsageView } from './usage-view.js';
import type { MetadataField } from '../routing/metadata-field.js';

/** The spec §2.1 chat completion, from a provider's normalised answer and its cost. */
export function buildChatCompletion(input: {
  id: string;
  modelId: string;
  endpoint: RoutableEndpoint;
  completion: NormalizedCompletion;
  cost: Cost;
  isByok: boolean;
  /** What the workspace pays (pricing/charge.ts); the upstream cost when absent. */
  charged?: Prisma.Decimal;
  serviceMetadata?: ServiceMetadataView;
  /** The answer field of the metadata (the one the caller's opt-in header names). */
  metadataField?: MetadataField;
}): ChatCompletionView {
  const { completion, cost } = input;
  const view: ChatCompletionView = {
    id: input.id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: input.modelId,
    provider: input.endpoint.provider.name,
    system_fingerprint: completion.systemFingerprint,
    service_tier: completion.serviceTier,
    choices: completion.choices,
    usage: buildUsageView(completion.usage, cost, input.isByok, input.charged),
  };
  if (input.serviceMetadata) view[input.metadataField ?? 'service_metadata'] = input.serviceMetadata;
  return view;
}
