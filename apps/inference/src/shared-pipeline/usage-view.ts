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
    // (cache writes; audio, file, video and image tokens), never invented as zeros.
    prompt_tokens_details: {
      cached_tokens: usage.cachedTokens,
      ...defined('cache_write_tokens', usage.cacheWriteTokens),
      ...defined('audio_tokens', usage.promptAudioTokens),
      ...defined('file_tokens', usage.promptFileTokens),
      ...defined('video_tokens', usage.promptVideoTokens),
    },
    completion_tokens_details: {
      reasoning_tokens: usage.reasoningTokens,
      ...defined('audio_tokens', usage.completionAudioTokens),
      ...defined('image_tokens', usage.completionImageTokens),
    },
    ...serverToolUseView(usage),
    ...costView(cost, isByok, charged),
  };
}

/** The gateway's cost fields, the same on every front door's usage: `charged` paid, the upstream price in the details. */
export function costView(cost: Cost, isByok: boolean, charged: Prisma.Decimal): Pick<ChatUsageView, 'cost' | 'is_byok' | 'cost_details'> {
  return {
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

function defined(field: string, value: number | undefined): Record<string, number> {
  return value === undefined ? {} : { [field]: value };
}

/** Spec §2.1: server_tool_use and server_tool_use_details carry the same three counts. */
function serverToolUseView(usage: NormalizedUsage): Pick<ChatUsageView, 'server_tool_use' | 'server_tool_use_details'> {
  const tools = usage.serverToolUse;
  if (!tools) return {};
  const view = {
    tool_calls_executed: tools.toolCallsExecuted,
    tool_calls_requested: tools.toolCallsRequested,
    web_search_requests: tools.webSearchRequests,
  };
  return { server_tool_use: view, server_tool_use_details: { ...view } };
}
