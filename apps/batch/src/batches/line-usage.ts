import type { BatchEndpoint, BatchUsageView } from '@gw/contracts';
import { Prisma } from '../generated/prisma/client.js';

/**
 * One line's usage, normalized from its endpoint's response body into the names of spec §2.1.2,
 * with the cost as a decimal string: the batch total is summed in decimals from these
 * (exactly the sum of the lines' reported costs, never a float accumulation).
 */
export interface LineUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cached_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  prompt_audio_tokens: number;
  completion_audio_tokens: number;
  completion_image_tokens: number;
  upstream_cost: string;
  cost: string;
  is_byok: boolean;
  tool_calls_executed: number;
  tool_calls_requested: number;
  web_search_requests: number;
}

type Json = Record<string, unknown>;
const int = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? Math.trunc(value) : 0);
const obj = (value: unknown): Json => (typeof value === 'object' && value !== null ? (value as Json) : {});
const dec = (value: unknown): string =>
  typeof value === 'number' && Number.isFinite(value) ? new Prisma.Decimal(String(value)).toFixed() : '0';

export function lineUsageOf(endpoint: BatchEndpoint, body: unknown): LineUsage {
  const usage = obj(obj(body).usage);
  const tools = obj(usage.server_tool_use);
  const common = {
    cost: dec(usage.cost),
    upstream_cost: dec(obj(usage.cost_details).upstream_inference_cost),
    is_byok: usage.is_byok === true,
    tool_calls_executed: int(tools.tool_calls_executed),
    tool_calls_requested: int(tools.tool_calls_requested),
    web_search_requests: int(tools.web_search_requests),
  };
  if (endpoint === '/v1/responses' || endpoint === '/v1/messages') {
    const prompt = int(usage.input_tokens);
    const completion = int(usage.output_tokens);
    return {
      ...common,
      prompt_tokens: prompt,
      completion_tokens: completion,
      total_tokens: endpoint === '/v1/responses' ? int(usage.total_tokens) || prompt + completion : prompt + completion,
      cached_tokens: int(obj(usage.input_tokens_details).cached_tokens) + int(usage.cache_read_input_tokens),
      cache_write_tokens: int(usage.cache_creation_input_tokens),
      reasoning_tokens: int(obj(usage.output_tokens_details).reasoning_tokens),
      prompt_audio_tokens: 0,
      completion_audio_tokens: 0,
      completion_image_tokens: 0,
    };
  }
  const promptDetails = obj(usage.prompt_tokens_details);
  const completionDetails = obj(usage.completion_tokens_details);
  return {
    ...common,
    prompt_tokens: int(usage.prompt_tokens),
    completion_tokens: int(usage.completion_tokens),
    total_tokens: int(usage.total_tokens),
    cached_tokens: int(promptDetails.cached_tokens),
    cache_write_tokens: int(promptDetails.cache_write_tokens),
    reasoning_tokens: int(completionDetails.reasoning_tokens),
    prompt_audio_tokens: int(promptDetails.audio_tokens),
    completion_audio_tokens: int(completionDetails.audio_tokens),
    completion_image_tokens: int(completionDetails.image_tokens),
  };
}

const NUMERIC_FIELDS = [
  'prompt_tokens',
  'completion_tokens',
  'total_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'prompt_audio_tokens',
  'completion_audio_tokens',
  'completion_image_tokens',
  'tool_calls_executed',
  'tool_calls_requested',
  'web_search_requests',
] as const;

/** The sum of the lines' usages: integers added, costs added as decimals. */
export interface UsageSum {
  counts: Record<(typeof NUMERIC_FIELDS)[number], number>;
  cost: Prisma.Decimal;
  upstreamCost: Prisma.Decimal;
  anyByok: boolean;
  lines: number;
}

export function sumUsage(usages: Iterable<LineUsage>): UsageSum {
  const counts = Object.fromEntries(NUMERIC_FIELDS.map((field) => [field, 0])) as UsageSum['counts'];
  let cost = new Prisma.Decimal(0);
  let upstreamCost = new Prisma.Decimal(0);
  let anyByok = false;
  let lines = 0;
  for (const usage of usages) {
    lines++;
    for (const field of NUMERIC_FIELDS) counts[field] += usage[field];
    cost = cost.add(usage.cost);
    upstreamCost = upstreamCost.add(usage.upstream_cost);
    anyByok ||= usage.is_byok;
  }
  return { counts, cost, upstreamCost, anyByok, lines };
}

/** Spec §2.1.2 from a sum. */
export function usageView(sum: UsageSum): BatchUsageView {
  const { counts } = sum;
  const anyTools = counts.tool_calls_executed + counts.tool_calls_requested + counts.web_search_requests > 0;
  return {
    cache_creation: null,
    prompt_tokens: counts.prompt_tokens,
    completion_tokens: counts.completion_tokens,
    total_tokens: counts.total_tokens,
    prompt_tokens_details: {
      audio_tokens: counts.prompt_audio_tokens,
      cache_write_tokens: counts.cache_write_tokens,
      cached_tokens: counts.cached_tokens,
    },
    completion_tokens_details: {
      audio_tokens: counts.completion_audio_tokens,
      image_tokens: counts.completion_image_tokens,
      reasoning_tokens: counts.reasoning_tokens,
    },
    cost: sum.cost.toNumber(),
    cost_details: { upstream_inference_cost: sum.upstreamCost.toNumber() },
    is_byok: sum.anyByok,
    iterations: null,
    server_tool_use: anyTools
      ? {
          tool_calls_executed: counts.tool_calls_executed,
          tool_calls_requested: counts.tool_calls_requested,
          web_search_requests: counts.web_search_requests,
        }
      : null,
  };
}
