import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { EVENTS, type Principal, type UsageRecordedEvent } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { context, SpanKind, trace } from '@opentelemetry/api';
import { ATTR, currentPrincipal, currentRequestId, currentTraceparent, tracer, tracingEnabled } from '@gw/telemetry';
import { ResilientNatsConnection } from '@gw/messaging';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import type { Charge } from '../pricing/charge.js';
import type { NormalizedUsage } from '../providers/provider-adapter.js';
import type { RouteAttempt } from '../routing/route-types.js';
import type { GenerationFinish } from './generation-finish.js';
import type { RequestFacts } from './request-facts.js';
import { JetStreamUsagePublisher, UsageOutbox, usageDetailsOf, type UsageOutboxStats } from '@gw/usage';
import { currentIdempotentRun } from '../idempotency/idempotent-run.js';

/** Longest wait for unacknowledged usage events when the service stops. */
const SHUTDOWN_FLUSH_MS = 5_000;

/** One finished generation, as both chat paths (non-streaming and streaming) know it. */
export interface GenerationOutcome {
  generationId: string;
  principal: Principal;
  /** Public model id that answered (after preset and `models` fallback). */
  modelId: string;
  attempt: RouteAttempt;
  /**
   * `succeeded`, or `failed` for a stream that broke after its first byte: tokens were
   * produced (and estimated when the provider sent no counts), so they are billed.
   */
  status: 'succeeded' | 'failed';
  usage: NormalizedUsage;
  charge: Charge;
  latencyMs: number;
  sessionId?: string;
  batchId?: string;
  streamed?: boolean;
  finish?: GenerationFinish;
  generationTimeMs?: number;
  /** Endpoint keys tried, in order, the answering one last; each call's HTTP status (0: none) and milliseconds. */
  endpointsTried?: string[];
  attemptStatuses?: number[];
  attemptLatenciesMs?: number[];
  /** The request's spend reservation, which this generation's cost settles. */
  reservationId?: string;
  /** What provider prompt caching took off the catalog price. */
  cacheDiscount?: { toFixed(): string };
  request?: RequestFacts;
}

/**
 * Publishes ONE `UsageRecordedEvent` per generation to JetStream (`events.usage.recorded`), and
 * `record` resolves only once JetStream acknowledged it: the answer leaves inference after its
 * usage is durable, so a replica that dies right after answering has billed it.
 * Events of concurrent requests go out together (group commit: one publish in flight, what
 * queues behind it goes next as one message). Management counts and bills it, batch prices its
 * lines, and inference's own consumer writes the generation record. Generations that produced
 * no tokens (every attempt refused before the first byte) are not recorded: nothing was
 * generated and nothing is billed.
 */
@Injectable()
export class GenerationUsagePublisher implements OnModuleDestroy {
  private readonly logger = new Logger(GenerationUsagePublisher.name);
  private readonly outbox: UsageOutbox;
  private readonly publisher: JetStreamUsagePublisher;
  private readonly ackTimeoutMs: number;

  constructor(nats: ResilientNatsConnection, @Inject(INFERENCE_ENV) env: InferenceEnv) {
    const publisher = (this.publisher = new JetStreamUsagePublisher(nats.connection, nats.jetstream));
    this.ackTimeoutMs = env.USAGE_ACK_TIMEOUT_MS;
    let lastErrorLog = 0;
    this.outbox = new UsageOutbox(publisher.publish, {
      maxPending: env.USAGE_OUTBOX_MAX,
      // Group commit: no linger (the request waits for the ack), one publish in flight, and the
      // events that queued behind it go out together (up to 100 a message).
      lingerMs: 0,
      concurrency: env.USAGE_PUBLISH_CONCURRENCY,
      onDrop: (event) => this.logger.error(`Usage outbox full: dropped the usage event of generation ${event.generationId}`),
      onPublishError: (error) => {
        // One line per 10 s while JetStream is unavailable, not one per event.
        if (Date.now() - lastErrorLog < 10_000) return;
        lastErrorLog = Date.now();
        this.logger.warn(
          `Usage events not yet acknowledged by JetStream (will retry): ${error instanceof Error ? error.message : String(error)}`,
        );
      },
    });
  }

  /**
   * Resolves once the generation's usage event is stored in JetStream. When that takes longer
   * than USAGE_ACK_TIMEOUT_MS (JetStream unreachable, the stream missing) the request fails
   * with a retryable 503 instead of answering unbilled; the event stays in the outbox and is
   * still published when JetStream is back (billed, not answered: the provider was paid).
   */
  async record(outcome: GenerationOutcome): Promise<void> {
    const event = toUsageEvent(outcome);
    stampRequest(event);
    // A request with an Idempotency-Key publishes its events once its outcome is stored for retries.
    const idempotent = currentIdempotentRun();
    if (idempotent) return idempotent.defer(event);
    if (!tracingEnabled()) return this.store(event);
    // The usage event as a producer span; consumers (management's counters) continue its context.
    const span = tracer().startSpan(`${EVENTS.usageRecorded} publish`, {
      kind: SpanKind.PRODUCER,
      attributes: {
        [ATTR.messagingSystem]: 'nats',
        [ATTR.messagingDestination]: EVENTS.usageRecorded,
        [ATTR.messagingOperation]: 'publish',
        [ATTR.generationId]: event.generationId,
        [ATTR.model]: event.model,
        [ATTR.providerName]: event.provider,
        [ATTR.inputTokens]: event.promptTokens,
        [ATTR.outputTokens]: event.completionTokens,
        [ATTR.cost]: event.cost,
      },
    });
    event.traceparent = currentTraceparent(trace.setSpan(context.active(), span));
    try {
      await this.store(event);
    } finally {
      span.end();
    }
  }

  /**
   * Publishes events an idempotent request deferred (or replays: each is counted once by its
   * generation id); resolves once JetStream acknowledged them all, else the same 503 as `record`.
   */
  async publishDeferred(events: UsageRecordedEvent[]): Promise<void> {
    await Promise.all(events.map((event) => this.store(event)));
  }

  /** A usage event built elsewhere (a response-cache hit), stored like the others before its answer leaves. */
  async publish(event: UsageRecordedEvent): Promise<void> {
    stampRequest(event);
    await this.store(event);
  }

  private async store(event: UsageRecordedEvent): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`not acknowledged within ${this.ackTimeoutMs} ms`)), this.ackTimeoutMs);
    });
    try {
      await Promise.race([this.outbox.enqueueAndWait(event), timeout]);
    } catch (error) {
      this.logger.error(
        `Generation ${event.generationId} not answered: its usage event is not stored in JetStream (${(error as Error).message})`,
      );
      throw new GatewayError(503, 'Usage could not be recorded; the generation was not returned', {
        errorType: 'server',
        metadata: { reason: 'usage_unavailable', retryable: true },
      });
    } finally {
      clearTimeout(timer);
    }
  }

  stats(): UsageOutboxStats {
    return this.outbox.stats();
  }

  async onModuleDestroy(): Promise<void> {
    const flushed = await this.outbox.flush(SHUTDOWN_FLUSH_MS);
    if (!flushed) this.logger.error(`Stopped with ${this.outbox.pending} usage events not acknowledged by JetStream`);
    this.outbox.close();
    this.publisher.close();
  }
}

/**
 * The request the event is billed for, and the gateway's proof for it: the principal the request
 * came with (a batch line's is the batch's grant), which management checks before billing.
 */
function stampRequest(event: UsageRecordedEvent): void {
  const requestId = currentRequestId();
  if (requestId) event.requestId = requestId;
  const principal = currentPrincipal();
  if (principal) event.principal = principal.token;
}

export function toUsageEvent(outcome: GenerationOutcome): UsageRecordedEvent {
  const { principal, usage, charge, attempt } = outcome;
  const event: UsageRecordedEvent = {
    generationId: outcome.generationId,
    workspaceId: principal.workspaceId,
    keyHash: principal.keyHash,
    userId: principal.userId,
    model: outcome.modelId,
    provider: attempt.endpoint.provider.id,
    upstreamModel: attempt.endpoint.upstreamModel,
    status: outcome.status,
    isByok: charge.isByok,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cachedTokens: usage.cachedTokens,
    reasoningTokens: usage.reasoningTokens,
    tokensEstimated: usage.estimated,
    cost: charge.charged.toFixed(),
    upstreamCost: charge.upstream.total.toFixed(),
    latencyMs: Math.max(0, Math.round(outcome.latencyMs)),
    createdAt: new Date().toISOString(),
  };
  const details = usageDetailsOf(usage);
  if (details) event.usageDetails = details;
  if (outcome.sessionId) event.sessionId = outcome.sessionId;
  if (outcome.streamed !== undefined) event.streamed = outcome.streamed;
  if (attempt.endpoint.priceVersion !== undefined) event.priceVersion = attempt.endpoint.priceVersion;
  if (outcome.generationTimeMs !== undefined) event.generationTimeMs = outcome.generationTimeMs;
  const finish = outcome.finish;
  if (finish?.finishReason) event.finishReason = finish.finishReason.slice(0, 64);
  if (finish?.nativeFinishReason) event.nativeFinishReason = finish.nativeFinishReason.slice(0, 64);
  if (finish?.upstreamId) event.upstreamId = finish.upstreamId.slice(0, 256);
  if (finish?.serviceTier) event.serviceTier = finish.serviceTier.slice(0, 64);
  if (finish?.cancelled) event.cancelled = true;
  // A batch line (the batch service set it on the principal): charged with its batch.
  const batchId = outcome.batchId ?? outcome.principal.batchId;
  if (batchId) event.batchId = batchId;
  if (outcome.reservationId) event.reservationId = outcome.reservationId;
  if (outcome.cacheDiscount) event.cacheDiscount = outcome.cacheDiscount.toFixed();
  const request = outcome.request;
  if (request) {
    if (request.presetId) event.presetId = request.presetId.slice(0, 64);
    if (request.router) event.router = request.router.slice(0, 64);
    event.numMediaPrompt = request.numMediaPrompt;
    event.numInputAudioPrompt = request.numInputAudioPrompt;
    if (request.moderationLatencyMs !== undefined) event.moderationLatencyMs = request.moderationLatencyMs;
    if (request.numSearchResults !== undefined) event.numSearchResults = request.numSearchResults;
    if (request.webSearchEngine) event.webSearchEngine = request.webSearchEngine.slice(0, 64);
    if (request.numFetches !== undefined) event.numFetches = request.numFetches;
    const client = request.client;
    if (client?.httpReferer) event.httpReferer = client.httpReferer;
    if (client?.userAgent) event.userAgent = client.userAgent;
    if (client?.origin) event.origin = client.origin;
    if (request.externalUser) event.externalUser = request.externalUser.slice(0, 256);
  }
  if (outcome.endpointsTried) {
    event.attempts = outcome.endpointsTried.length;
    event.endpointsTried = outcome.endpointsTried;
    if (outcome.attemptStatuses) event.attemptStatuses = outcome.attemptStatuses;
    if (outcome.attemptLatenciesMs) event.attemptLatenciesMs = outcome.attemptLatenciesMs;
  }
  return event;
}
