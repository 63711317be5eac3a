import { Inject, Injectable, Logger } from '@nestjs/common';
import { type Principal, type UsageRecordedEvent, CreditsGet } from '@gw/contracts';
import { actingWithGrant, RpcClient } from '@gw/messaging';
import { Prisma, type Batch } from '../generated/prisma/client.js';
import { Clock } from '../clock/clock.js';
import { BATCH_ENV, type BatchEnv } from '../env.js';
import { PrismaService } from '../prisma/prisma.service.js';
import type { BatchUsageView } from '@gw/contracts';
import { ChargePublisher } from './charge-publisher.js';
import { LINE_EVENTS_PER_MESSAGE, lineGenerationEvent } from './line-generations.js';

export type GuardOutcome = { kind: 'paid' } | { kind: 'insufficient'; cost: Prisma.Decimal; balance: Prisma.Decimal };

/**
 * The cost guard (spec §3.1). A batch's lines run uncharged; when a finalized batch
 * is read, its summed cost is compared with the workspace's available balance: above it, the
 * read is a 402 and nothing is charged; otherwise the charge is taken exactly once: one
 * compare-and-set (`charged_at IS NULL`) picks the one poll that publishes it, and the event's
 * id (the batch id) makes its republish harmless.
 */
@Injectable()
export class CostGuard {
  private readonly logger = new Logger(CostGuard.name);

  constructor(
    private readonly prisma: PrismaService,
    private readonly rpc: RpcClient,
    private readonly charges: ChargePublisher,
    private readonly clock: Clock,
    @Inject(BATCH_ENV) private readonly env: BatchEnv,
  ) {}

  /** `caller`: the client reading the batch, whose request's principal travels with the balance read; else the batch's grant. */
  async settle(batch: Batch, caller?: Principal): Promise<GuardOutcome> {
    const cost = batch.cost ?? new Prisma.Decimal(0);
    if (batch.chargedAt) {
      if (!batch.chargePublishedAt) await this.publish(batch);
      return { kind: 'paid' };
    }
    if (cost.gt(0)) {
      const credits = await actingWithGrant(caller ? undefined : batch.principalGrant, () =>
        this.rpc.send(CreditsGet, { principal: caller ?? (batch.principal as unknown as Principal) }, this.env.RPC_TIMEOUT_MS),
      );
      const balance = new Prisma.Decimal(String(credits.total_credits)).minus(String(credits.total_usage));
      if (cost.gt(balance)) return { kind: 'insufficient', cost, balance };
    }
    const { count } = await this.prisma.batch.updateMany({
      where: { id: batch.id, chargedAt: null },
      data: { chargedAt: this.clock.now() },
    });
    // The losing poll of a race: the winner publishes (and a sweep republishes if it died).
    if (count === 1) await this.publish(batch);
    return { kind: 'paid' };
  }

  /**
   * Publishes the lines' generations of a batch run at a provider's batch API (the gateway-run
   * lines' were published by inference as they ran), then the charge (a zero cost has nothing to
   * publish), and marks it published: a sweep republishes all of it until then, harmlessly.
   */
  async publish(batch: Batch): Promise<void> {
    const cost = batch.cost ?? new Prisma.Decimal(0);
    if (batch.upstream) await this.publishLines(batch);
    if (cost.gt(0)) await this.charges.publish(chargeEvent(batch, this.clock.now()));
    await this.prisma.batch.updateMany({ where: { id: batch.id, chargePublishedAt: null }, data: { chargePublishedAt: this.clock.now() } });
    this.logger.log(`Batch ${batch.id} charged ${cost.toFixed()}`);
  }

  private async publishLines(batch: Batch): Promise<void> {
    const lines = await this.prisma.batchRequest.findMany({
      where: { batchId: batch.id, status: 'completed', generationId: { not: null } },
      orderBy: { lineNumber: 'asc' },
      select: { generationId: true, usage: true, response: true, finishedAt: true },
    });
    const events = lines.flatMap((line) => lineGenerationEvent(batch, line) ?? []);
    for (let start = 0; start < events.length; start += LINE_EVENTS_PER_MESSAGE)
      await this.charges.publishLines(events.slice(start, start + LINE_EVENTS_PER_MESSAGE), `${batch.id}:lines:${start}`);
  }
}

/** The batch's charge as a usage event management counts: the sums of its lines. */
function chargeEvent(batch: Batch, at: Date): UsageRecordedEvent {
  const principal = batch.principal as unknown as Principal;
  const usage = batch.usage as unknown as BatchUsageView | null;
  const upstream = usage?.cost_details?.upstream_inference_cost ?? 0;
  return {
    generationId: batch.id,
    kind: 'batch_charge',
    workspaceId: batch.workspaceId,
    keyHash: batch.keyHash,
    userId: principal.userId,
    model: batch.model,
    provider: 'batch',
    upstreamModel: batch.model,
    status: 'succeeded',
    isByok: usage?.is_byok ?? false,
    promptTokens: usage?.prompt_tokens ?? 0,
    completionTokens: usage?.completion_tokens ?? 0,
    cachedTokens: usage?.prompt_tokens_details.cached_tokens ?? 0,
    reasoningTokens: usage?.completion_tokens_details.reasoning_tokens ?? 0,
    tokensEstimated: false,
    cost: (batch.cost ?? new Prisma.Decimal(0)).toFixed(),
    upstreamCost: new Prisma.Decimal(String(upstream)).toFixed(),
    latencyMs: 0,
    createdAt: at.toISOString(),
    // The gateway's grant for this batch's workspace and key: management bills nothing without it.
    ...(batch.principalGrant ? { principal: batch.principalGrant } : {}),
  };
}
