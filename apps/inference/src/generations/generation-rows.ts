import type { UsageRecordedEvent } from '@gw/contracts';
import { Prisma } from '../generated/prisma/client.js';

/** A usage event as a `generations` row. */
export function generationRowOf(event: UsageRecordedEvent): Prisma.GenerationCreateManyInput {
  return {
    id: event.generationId,
    workspaceId: event.workspaceId,
    keyHash: event.keyHash,
    userId: event.userId,
    model: event.model,
    provider: event.provider,
    upstreamModel: event.upstreamModel,
    status: event.status,
    promptTokens: event.promptTokens,
    completionTokens: event.completionTokens,
    cachedTokens: event.cachedTokens,
    reasoningTokens: event.reasoningTokens,
    tokensEstimated: event.tokensEstimated,
    cost: new Prisma.Decimal(event.cost),
    upstreamCost: new Prisma.Decimal(event.upstreamCost),
    isByok: event.isByok,
    latencyMs: event.latencyMs,
    sessionId: event.sessionId ?? null,
    batchId: event.batchId ?? null,
    attempts: event.attempts ?? 1,
    endpointsTried: event.endpointsTried ?? [],
    createdAt: new Date(event.createdAt),
  };
}
