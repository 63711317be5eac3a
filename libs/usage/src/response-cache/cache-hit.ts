import type { Principal, UsageRecordedEvent } from '@gw/contracts';
import { randomUUID } from 'node:crypto';
import { generationIdOf, MAX_GENERATIONS_PER_REQUEST } from '@gw/messaging';
import { currentPrincipal, nextRequestSequence } from '@gw/telemetry';
import { usageDetailsOf } from '../usage-details.js';
import type { HitStamp } from './cached-answer.js';
import type { CacheEntry } from './cache-entry.js';
import { hitCharge } from './hit-money.js';

/** What a hit's caller asked for that changes its record or its answer. */
export interface HitRequest {
  principal: Principal;
  sessionId?: string;
  serviceMetadata?: boolean;
  metadataField?: 'openrouter_metadata';
}

/**
 * A hit is a generation of its own: a new id, charged `rate` × the cost it avoided,
 * no upstream cost, not BYOK, the stored token counts, marked a hit with its source. The caller
 * publishes `event` (durable before the answer leaves) and stamps the stored answer with `stamp`.
 * The spend check (`assertMaySpend`) comes first, as on every inference entry point.
 */
export function settleHit(
  request: HitRequest,
  entry: CacheEntry,
  streamed: boolean,
  rate: string,
  newId: () => string = newGenerationId,
): { event: UsageRecordedEvent; stamp: HitStamp } {
  const { principal } = request;
  const generation = entry.generation;
  const { charged, avoided } = hitCharge(generation.charged, rate);
  const hitId = newId();
  const { usage } = generation;
  const event: UsageRecordedEvent = {
    generationId: hitId,
    workspaceId: principal.workspaceId,
    keyHash: principal.keyHash,
    userId: principal.userId,
    model: generation.modelId,
    provider: generation.providerId,
    upstreamModel: generation.upstreamModel,
    status: 'succeeded',
    isByok: false,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cachedTokens: usage.cachedTokens,
    reasoningTokens: usage.reasoningTokens,
    tokensEstimated: usage.estimated,
    cost: charged,
    upstreamCost: '0',
    latencyMs: 0,
    createdAt: new Date().toISOString(),
    streamed,
    attempts: 1,
    endpointsTried: [],
    cacheHit: true,
    costAvoided: avoided,
    responseCacheSourceId: generation.id,
  };
  const details = usageDetailsOf(usage);
  if (details) event.usageDetails = details;
  if (request.sessionId) event.sessionId = request.sessionId;
  if (principal.batchId) event.batchId = principal.batchId;
  const stamp: HitStamp = {
    storedId: generation.id,
    hitId,
    cost: Number(charged),
    serviceMetadata: request.serviceMetadata === true,
    metadataField: request.metadataField ?? 'service_metadata',
    ageSeconds: Math.max(0, Math.round((Date.now() - entry.storedAt) / 1000)),
  };
  return { event, stamp };
}

/**
 * Within a request whose principal has a nonce: its next slot, `gen-<nonce>-<slot>`, the ids the
 * billing consumers take under that principal (and no others). Elsewhere (a batch's grant, a bus
 * without credentials) `gen-<ms in base 36>-<20 hex>`: time-ordered, 80 random bits (the UUID's
 * first and last groups; randomUUID draws from a cached pool, randomBytes is a syscall each).
 */
export function newGenerationId(): string {
  const principal = currentPrincipal();
  if (principal?.nonce && !principal.grant) {
    const slot = nextRequestSequence()!;
    // Past the last slot the event will be refused (dead-lettered, visible): a bug to see, not to hide.
    if (slot < MAX_GENERATIONS_PER_REQUEST) return generationIdOf(principal.nonce, slot);
  }
  const random = randomUUID();
  return `gen-${Date.now().toString(36)}-${random.slice(0, 8)}${random.slice(24)}`;
}
