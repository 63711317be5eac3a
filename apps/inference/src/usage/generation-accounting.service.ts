import { Inject, Injectable } from '@nestjs/common';
import type { Principal, ServiceMetadataView } from '@gw/contracts';
import { tracingEnabled } from '@gw/telemetry';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { Prisma } from '../generated/prisma/client.js';
import { chargeFor, type Charge } from '../pricing/charge.js';
import { computeCost } from '../pricing/cost.js';
import type { EndpointPricing } from '../catalog/catalog.service.js';
import type { NormalizedUsage } from '../providers/provider-adapter.js';
import type { AttemptRecord, AttemptTracker } from '../routing/attempt-tracker.js';
import { ProviderRouter, type PlannedRoute } from '../routing/provider-router.service.js';
import type { RouteAttempt } from '../routing/route-types.js';
import { buildServiceMetadata } from '../routing/routing-metadata.js';
import { recordGeneration } from './generation-metrics.js';
import { recordGenerationOnSpan } from './generation-span.js';
import { GenerationUsagePublisher } from './generation-usage-publisher.service.js';
import { SpendHolds } from '../billing/spend-holds.service.js';
import { ResponseCacheCaptures } from '../response-cache/cache-captures.js';
import type { GenerationFinish } from './generation-finish.js';
import { ContentLog } from '../content/content-log.service.js';
import type { GenerationContentDraft } from '../content/generation-content.js';
import type { RequestFacts } from './request-facts.js';

export interface SettleInput {
  generationId: string;
  principal: Principal;
  attempt: RouteAttempt;
  tracker: AttemptTracker;
  usage: NormalizedUsage;
  /** `failed` for a stream that broke after its first byte (its tokens are still billed). */
  status: 'succeeded' | 'failed';
  sessionId?: string;
  batchId?: string;
  /** The client asked for a stream; absent: it did not. */
  streamed?: boolean;
  /** How the answer ended (finish reasons, the provider's id), when the caller knows. */
  finish?: GenerationFinish;
  /** The prompt and completion, built only when the workspace logs content. */
  content?: () => GenerationContentDraft;
  /** Server tools the gateway ran for this generation: added to what the workspace pays, BYOK or not. */
  toolCost?: Prisma.Decimal;
  /** What the request tells about itself (preset, router, media counts, moderation time). */
  request?: RequestFacts;
}

/**
 * The end of every generation (chat streamed or not, embeddings): its price
 * (catalog cost, and on BYOK only the gateway fee), one usage event stored in JetStream
 * (resolves after its PubAck: the answer must not leave before), and the endpoint's
 * throughput fed back to routing. `metadata()` builds `service_metadata` from the same plan.
 */
@Injectable()
export class GenerationAccounting {
  private readonly byokFeeRate: Prisma.Decimal;
  private readonly region: string;

  constructor(
    private readonly router: ProviderRouter,
    private readonly usage: GenerationUsagePublisher,
    private readonly holds: SpendHolds,
    private readonly captures: ResponseCacheCaptures,
    private readonly contentLog: ContentLog,
    @Inject(INFERENCE_ENV) env: InferenceEnv,
  ) {
    this.byokFeeRate = new Prisma.Decimal(env.BYOK_FEE_RATE);
    this.region = env.SERVICE_REGION;
  }

  async settle(input: SettleInput): Promise<Charge> {
    const { attempt, tracker, usage } = input;
    const answering = tracker.records.at(-1);
    // Time-of-day prices: the window in force when the answering provider call started.
    const callStartedAt = tracker.startedAtEpochMs + Math.round((answering?.startedAt ?? tracker.startedAt) - tracker.startedAt);
    const cost = computeCost(attempt.endpoint.pricing, usage, callStartedAt);
    const modelCharge = chargeFor(cost, attempt.credential.kind === 'byok', this.byokFeeRate);
    const charge =
      input.toolCost && !input.toolCost.isZero() ? { ...modelCharge, charged: modelCharge.charged.add(input.toolCost) } : modelCharge;
    const latencyMs = tracker.elapsedMs();
    // Throughput: completion tokens over the answering attempt's whole time (a stream's too);
    // an answer without completion tokens (embeddings) says nothing about it.
    if (input.status === 'succeeded' && answering && usage.completionTokens > 0)
      this.router.recordGeneration(attempt, usage.completionTokens, performance.now() - answering.startedAt);
    recordGeneration(attempt, tracker, usage, charge, input.status);
    if (tracingEnabled()) recordGenerationOnSpan(input.generationId, attempt, tracker.attemptCount, usage, charge);
    // A request the response cache will store keeps what its answer cost (what a hit avoids).
    this.captures.of(input.principal)?.note({
      generationId: input.generationId,
      modelId: attempt.modelId,
      providerId: attempt.endpoint.provider.id,
      upstreamModel: attempt.endpoint.upstreamModel,
      usage,
      charged: charge.charged,
      isByok: charge.isByok,
      status: input.status,
    });
    await this.usage.record({
      generationId: input.generationId,
      principal: input.principal,
      modelId: attempt.modelId,
      attempt,
      status: input.status,
      usage,
      charge,
      latencyMs,
      sessionId: input.sessionId,
      batchId: input.batchId,
      streamed: input.streamed ?? false,
      finish: input.finish,
      // The answering provider call's own time (the whole stream's, for a stream).
      generationTimeMs: answering ? Math.max(0, Math.round(performance.now() - answering.startedAt)) : undefined,
      endpointsTried: tracker.records.map((record) => record.attempt.endpointKey),
      attemptStatuses: tracker.records.map(attemptStatusOf),
      attemptLatenciesMs: tracker.records.map((record) => Math.max(0, Math.round(record.latencyMs))),
      reservationId: this.holds.settle(input.principal, charge.charged),
      cacheDiscount: cacheDiscountOf(attempt.endpoint.pricing, usage, cost.total, callStartedAt),
      request: input.request,
    });
    // Stored before the answer leaves, so it can be read back at once; never fails the answer.
    if (input.content) await this.contentLog.capture(input.principal, input.generationId, input.content);
    return charge;
  }

  metadata(plan: PlannedRoute, tracker: AttemptTracker): ServiceMetadataView {
    return buildServiceMetadata(plan, tracker, this.region);
  }
}

/**
 * What provider prompt caching took off the catalog price of the prompt: the same tokens at the
 * full prompt price, less what they cost (negative when cache writes cost more than reads saved).
 */
function cacheDiscountOf(pricing: EndpointPricing, usage: NormalizedUsage, cost: Prisma.Decimal, callStartedAt?: number): Prisma.Decimal {
  if (usage.cachedTokens === 0 && !usage.cacheWriteTokens) return new Prisma.Decimal(0);
  return computeCost(pricing, { ...usage, cachedTokens: 0, cacheWriteTokens: 0 }, callStartedAt).total.sub(cost);
}

/** What the provider answered a call with: 200 for the answer, the failure's HTTP status, 0 when it gave none (connect, timeout). */
function attemptStatusOf(record: AttemptRecord): number {
  if (record.outcome === 'succeeded') return 200;
  return record.failure?.upstreamStatus ?? 0;
}
