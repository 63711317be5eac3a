import type { ChatUsageView } from '@gw/contracts';
import type { Prisma } from '../generated/prisma/client.js';
import type { Cost } from '../pricing/cost.js';
import type { NormalizedUsage } from '../providers/provider-adapter.js';

/**
 * The spec §2.1 usage object, shared by the chat completion and the final stream chunk.
 * `cost` is the upstream price; `charged` what the workspace pays (pricing/charge.ts): on
 * BYOK only the gateway's fee, with the upstream price in `upstream_inference_cost`.
 */
export function buildUsageView(usage: NormalizedUsage, cost: Cost, isByok: boolean, charged: Prisma.Decimal = cost.total): ChatUsageView {
  return {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    // Details the provider reported beyond the cached and reasoning counts are passed on
    // (Anthropic's cache writes; audio and image tokens), never invented as zeros.
    prompt_tokens_details: {
      cached_tokens: usage.cachedTokens,
      ...(usage.cacheWriteTokens !== undefined ? { cache_write_tokens: usage.cacheWriteTokens } : {}),
      ...(usage.audioTokens !== undefined ? { audio_tokens: usage.audioTokens } : {}),
    },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoningTokens,
      ...(usage.imageTokens !== undefined ? { image_tokens: usage.imageTokens } : {}),
    },
    cost: charged.toNumber(),
    is_byok: isByok,
    cost_details: {
      upstream_inference_cost: isByok ? cost.total.toNumber() : null,
      upstream_inference_prompt_cost: cost.input.toNumber(),
      upstream_inference_completions_cost: cost.output.toNumber(),
      upstream_inference_input_cost: cost.input.toNumber(),
      upstream_inference_output_cost: cost.output.toNumber(),
    },
  };
}
