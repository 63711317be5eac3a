import { Inject, Injectable, Logger } from '@nestjs/common';
import {
  NATIVE_BATCH_CUSTOM_ID,
  NATIVE_BATCH_MAX_LINES,
  type NativeBatchHandle,
  type NativeBatchLineResult,
  type Principal,
  NativeBatchCancel,
  NativeBatchDelete,
  NativeBatchStatus,
  NativeBatchSubmit,
  type NativeBatchProviderPreferences,
  type BatchEndpoint,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { actingWithGrant, RpcClient } from '@gw/messaging';
import { Prisma, type Batch } from '../generated/prisma/client.js';
import type { LineUsage } from '../batches/line-usage.js';
import { Clock } from '../clock/clock.js';
import { BATCH_ENV, type BatchEnv } from '../env.js';
import { PrismaService } from '../prisma/prisma.service.js';

/** What `batches.upstream` holds for a batch run at the provider. */
export interface UpstreamBatch {
  handle: NativeBatchHandle;
  /** When to ask the provider again, and the wait after that (doubling up to BATCH_NATIVE_POLL_MAX_MS). */
  nextPollAt: string;
  pollDelayMs: number;
}

export type NativeSubmission = { native: false; reason: string } | { native: true; upstream: UpstreamBatch };

/** What a poll found: still running, or the provider's end state (results stored as lines). */
export type NativePoll = { kind: 'waiting' } | { kind: 'ended' | 'cancelled' | 'expired' } | { kind: 'failed'; message: string };

/**
 * The native path (issue 13, the batchnative contract): a batch whose model has an endpoint with
 * a provider batch API is submitted there through inference (`inference.batches.native.*`),
 * polled with backoff, and its translated results stored as the batch's lines, each once.
 * Inference charges nothing for native lines: they are charged with their batch.
 */
@Injectable()
export class NativeBatches {
  private readonly logger = new Logger(NativeBatches.name);

  constructor(
    private readonly prisma: PrismaService,
    private readonly rpc: RpcClient,
    private readonly clock: Clock,
    @Inject(BATCH_ENV) private readonly env: BatchEnv,
  ) {}

  async submit(batch: Batch): Promise<NativeSubmission> {
    if (this.env.BATCH_NATIVE !== 'true') return { native: false, reason: 'BATCH_NATIVE is off' };
    if (batch.totalCount > NATIVE_BATCH_MAX_LINES) return { native: false, reason: 'more lines than a provider batch takes' };
    const lines = await this.prisma.batchRequest.findMany({
      where: { batchId: batch.id },
      orderBy: { lineNumber: 'asc' },
      select: { customId: true, body: true },
    });
    // A custom_id the providers refuse: inference would answer native: false anyway.
    if (lines.some((line) => !NATIVE_BATCH_CUSTOM_ID.test(line.customId)))
      return { native: false, reason: 'custom_id outside [A-Za-z0-9_-]{1,64}' };
    const reply = await actingWithGrant(batch.principalGrant, () =>
      this.rpc.send(
        NativeBatchSubmit,
        {
          principal: principalOf(batch),
          batchId: batch.id,
          endpoint: batch.endpoint as BatchEndpoint,
          model: batch.model,
          ...(batch.provider ? { provider: batch.provider as NativeBatchProviderPreferences } : {}),
          lines: lines.map((line) => ({ custom_id: line.customId, body: line.body as Record<string, unknown> })),
        },
        this.env.BATCH_NATIVE_TIMEOUT_MS,
      ),
    );
    if (!reply.native) return reply;
    this.logger.log(`Batch ${batch.id} submitted to ${reply.handle.provider} as ${reply.handle.upstreamBatchId}`);
    return {
      native: true,
      upstream: {
        handle: reply.handle,
        nextPollAt: this.after(this.env.BATCH_NATIVE_POLL_MIN_MS),
        pollDelayMs: this.env.BATCH_NATIVE_POLL_MIN_MS,
      },
    };
  }

  /** Asks the provider once; stores the results (each line once) when it has them. */
  async poll(batch: Batch): Promise<NativePoll> {
    const upstream = batch.upstream as unknown as UpstreamBatch;
    const reply = await actingWithGrant(batch.principalGrant, () =>
      this.rpc.send(NativeBatchStatus, { principal: principalOf(batch), handle: upstream.handle }, this.env.BATCH_NATIVE_TIMEOUT_MS),
    );
    if (reply.state === 'failed') return { kind: 'failed', message: reply.error?.message ?? 'The provider refused the batch' };
    if (reply.state === 'in_progress' || reply.state === 'cancelling' || !reply.results) {
      const delay = Math.min(upstream.pollDelayMs * 2, this.env.BATCH_NATIVE_POLL_MAX_MS);
      const next: UpstreamBatch = { ...upstream, nextPollAt: this.after(delay), pollDelayMs: delay };
      await this.prisma.batch.update({ where: { id: batch.id }, data: { upstream: next as unknown as Prisma.InputJsonValue } });
      return { kind: 'waiting' };
    }
    await this.store(batch.id, reply.results);
    return { kind: reply.state };
  }

  /** A poll that failed (the provider or inference away): the next one after the backoff. */
  async postpone(batch: Batch): Promise<void> {
    const upstream = batch.upstream as unknown as UpstreamBatch;
    const delay = Math.min(upstream.pollDelayMs * 2, this.env.BATCH_NATIVE_POLL_MAX_MS);
    const next: UpstreamBatch = { ...upstream, nextPollAt: this.after(delay), pollDelayMs: delay };
    await this.prisma.batch.update({ where: { id: batch.id }, data: { upstream: next as unknown as Prisma.InputJsonValue } });
  }

  /** Asks the provider to stop (a failure is a 502); `track`: poll soon for the results of the lines that ran. */
  async cancel(batch: Batch, track = true, caller?: Principal): Promise<void> {
    const upstream = batch.upstream as unknown as UpstreamBatch;
    try {
      // In a client's request, as that client (its principal travels with the call); else with the batch's grant.
      await actingWithGrant(caller ? undefined : batch.principalGrant, () =>
        this.rpc.send(
          NativeBatchCancel,
          { principal: caller ?? principalOf(batch), handle: upstream.handle },
          this.env.BATCH_NATIVE_TIMEOUT_MS,
        ),
      );
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new GatewayError(502, `Cancelling the upstream batch at ${upstream.handle.provider} failed: ${reason}`, {
        errorType: 'provider_unavailable',
        metadata: { provider: upstream.handle.provider },
      });
    }
    if (!track) return;
    await this.prisma.batch.update({
      where: { id: batch.id },
      data: {
        upstream: {
          ...upstream,
          nextPollAt: this.after(0),
          pollDelayMs: this.env.BATCH_NATIVE_POLL_MIN_MS,
        } as unknown as Prisma.InputJsonValue,
      },
    });
  }

  /** Deletes the upstream batch and its files; a failure there is a 502 (spec §4.1). */
  async delete(batch: Batch, caller?: Principal): Promise<{ provider: string; status: string }> {
    const upstream = batch.upstream as unknown as UpstreamBatch;
    try {
      const reply = await actingWithGrant(caller ? undefined : batch.principalGrant, () =>
        this.rpc.send(
          NativeBatchDelete,
          { principal: caller ?? principalOf(batch), handle: upstream.handle },
          this.env.BATCH_NATIVE_TIMEOUT_MS,
        ),
      );
      return { provider: reply.provider, status: reply.status };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new GatewayError(502, `Deleting the upstream batch at ${upstream.handle.provider} failed: ${reason}`, {
        errorType: 'provider_unavailable',
        metadata: { provider: upstream.handle.provider },
      });
    }
  }

  /**
   * The results as lines, in one transaction: only lines still pending take a result, and the
   * counters grow by exactly those, so a second poll (the same results again) changes nothing.
   */
  private async store(batchId: string, results: NativeBatchLineResult[]): Promise<void> {
    const now = this.clock.now();
    await this.prisma.$transaction(async (tx) => {
      let completed = 0;
      let failed = 0;
      for (const result of results) {
        const usage = lineUsageOfNative(result);
        const status = result.ok ? 'completed' : 'failed';
        // Spec §2.1.1: only an answered line has a response; a failed one has its failure in `error`.
        const response =
          result.ok && result.status_code !== null
            ? { status_code: result.status_code, request_id: result.request_id ?? result.generation_id, body: result.body }
            : null;
        const { count } = await tx.batchRequest.updateMany({
          where: { batchId, customId: result.custom_id, status: 'pending' },
          data: {
            status,
            response: response === null ? Prisma.DbNull : (response as Prisma.InputJsonValue),
            error: result.error ? (result.error as unknown as Prisma.InputJsonValue) : Prisma.DbNull,
            usage: result.ok || Number(usage.cost) > 0 ? (usage as unknown as Prisma.InputJsonValue) : Prisma.DbNull,
            cost: new Prisma.Decimal(usage.cost),
            generationId: result.ok ? result.generation_id : null,
            finishedAt: now,
          },
        });
        if (count === 1 && result.ok) completed++;
        else if (count === 1) failed++;
      }
      if (completed + failed > 0)
        await tx.batch.update({
          where: { id: batchId },
          data: { completedCount: { increment: completed }, failedCount: { increment: failed } },
        });
    });
  }

  private after(ms: number): string {
    return new Date(this.clock.now().getTime() + ms).toISOString();
  }
}

const principalOf = (batch: Batch): Principal => batch.principal as unknown as Principal;

/** The contract's line usage (decimal strings) in this service's line usage. */
function lineUsageOfNative(result: NativeBatchLineResult): LineUsage {
  const usage = result.usage;
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
    cached_tokens: usage.cached_tokens,
    cache_write_tokens: usage.cache_write_tokens,
    reasoning_tokens: usage.reasoning_tokens,
    prompt_audio_tokens: 0,
    completion_audio_tokens: 0,
    completion_image_tokens: 0,
    cost: new Prisma.Decimal(usage.cost).toFixed(),
    upstream_cost: new Prisma.Decimal(usage.upstream_cost).toFixed(),
    is_byok: usage.is_byok,
    tool_calls_executed: 0,
    tool_calls_requested: 0,
    web_search_requests: 0,
  };
}
