import { UsageRecordedEvent } from '@gw/contracts';
import { validateDto } from '@gw/messaging';
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

/**
 * Parses and validates one message of the USAGE stream: the bare event, or a Nest packet
 * (`{pattern, data}`) should a publisher wrap it. Null for anything else (poison message).
 */
export async function parseUsageEvent(payload: Uint8Array): Promise<UsageRecordedEvent | null> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(payload));
  } catch {
    return null;
  }
  const candidate = parsed && typeof parsed === 'object' && 'data' in parsed && 'pattern' in parsed ? (parsed as { data: unknown }).data : parsed;
  if (!candidate || typeof candidate !== 'object') return null;
  try {
    return await validateDto(UsageRecordedEvent, candidate, 'strip');
  } catch {
    return null;
  }
}
