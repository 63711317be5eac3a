import type { Principal, UsageRecordedEvent } from '@gw/contracts';
import type { Batch } from '../generated/prisma/client.js';
import type { LineUsage } from '../batches/line-usage.js';
import type { UpstreamBatch } from '../native/native-batches.js';

/** Events per message on the USAGE stream (the contract's USAGE_BATCH_MAX_EVENTS). */
export const LINE_EVENTS_PER_MESSAGE = 100;

/** What a native line needs to be recorded as a generation. */
export interface AnsweredLine {
  generationId: string | null;
  usage: unknown;
  response: unknown;
  finishedAt: Date | null;
}

/**
 * A line answered at a provider's batch API as a generation for inference's records: its cost is
 * the line's `usage.cost` and `batchId` is set, so management bills nothing for it (the batch's one
 * charge does). Ids and times come from the stored line, so a republish is the same event.
 */
export function lineGenerationEvent(batch: Batch, line: AnsweredLine): UsageRecordedEvent | undefined {
  const usage = line.usage as LineUsage | null;
  if (!line.generationId || !usage || !line.finishedAt || !batch.upstream) return undefined;
  const { handle } = batch.upstream as unknown as UpstreamBatch;
  const principal = batch.principal as unknown as Principal;
  const finishReason = finishReasonOf(line.response);
  return {
    generationId: line.generationId,
    kind: 'generation',
    batchId: batch.id,
    workspaceId: batch.workspaceId,
    keyHash: batch.keyHash,
    userId: principal.userId,
    model: batch.model,
    provider: handle.provider,
    upstreamModel: handle.upstreamModel,
    status: 'succeeded',
    isByok: usage.is_byok,
    promptTokens: usage.prompt_tokens,
    completionTokens: usage.completion_tokens,
    cachedTokens: usage.cached_tokens,
    reasoningTokens: usage.reasoning_tokens,
    tokensEstimated: false,
    cost: usage.cost,
    upstreamCost: usage.upstream_cost,
    // The provider's batch API reports no per-line timing.
    latencyMs: 0,
    createdAt: line.finishedAt.toISOString(),
    attempts: 1,
    endpointsTried: [`${handle.provider}/${handle.upstreamModel}`],
    streamed: false,
    ...(usage.cache_write_tokens > 0 ? { usageDetails: { cache_write_tokens: usage.cache_write_tokens } } : {}),
    ...(finishReason ? { finishReason } : {}),
    ...(batch.principalGrant ? { principal: batch.principalGrant } : {}),
  };
}

/** The chat shape's finish reason, the only shape of the four that names one in the gateway's terms. */
function finishReasonOf(response: unknown): string | undefined {
  const body = (response as { body?: { choices?: Array<{ finish_reason?: unknown }> } } | null)?.body;
  const reason = body?.choices?.[0]?.finish_reason;
  return typeof reason === 'string' && reason.length <= 64 ? reason : undefined;
}
