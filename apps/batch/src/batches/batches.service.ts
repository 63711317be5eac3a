import { Injectable } from '@nestjs/common';
import { randomBytes, randomUUID } from 'node:crypto';
import {
  type BatchAppendRequest,
  type BatchCreateRequest,
  type BatchDeletedView,
  type BatchListRequest,
  type BatchListView,
  type BatchResultsPage,
  type BatchStatusName,
  type BatchView,
  type Principal,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { batchIdOfGrant, receivedPrincipal } from '@gw/messaging';
import { Prisma, type Batch } from '../generated/prisma/client.js';
import { CostGuard } from '../billing/cost-guard.service.js';
import { SpendCheck } from '../billing/spend-check.js';
import { Clock } from '../clock/clock.js';
import { NativeBatches } from '../native/native-batches.js';
import { BatchSignals } from '../worker/batch-signals.js';
import { BatchStore } from './batch-store.js';
import { isTerminal } from './batch-transitions.js';
import { batchView, resultItem, usageOf } from './batch-view.js';

const DAY_MS = 86_400_000;
/** Spec §3.1 / §8. */
const COMPLETION_WINDOW_MS = DAY_MS;
export const RESULT_RETENTION_MS = 30 * DAY_MS;

/** The batch API: uploads, reads with the cost guard, cancel and delete. */
@Injectable()
export class BatchesService {
  constructor(
    private readonly store: BatchStore,
    private readonly clock: Clock,
    private readonly guard: CostGuard,
    private readonly native: NativeBatches,
    private readonly signals: BatchSignals,
    private readonly spend: SpendCheck,
  ) {}

  private get prisma() {
    return this.store.prisma;
  }

  /**
   * Opens a batch invisible to reads until its lines are all stored (`submitted_at`); a key with
   * nothing left to spend (credits, its limit, its member's or workspace's budget) is a 402 first.
   */
  async create(request: BatchCreateRequest): Promise<{ id: string }> {
    const { principal } = request;
    await this.spend.assertMayStart(principal);
    const now = this.clock.now();
    const received = receivedPrincipal();
    const grant = received?.grant && received.nonce ? received.nonce : undefined;
    // The grant's own batch: its charge is billed only under this id, so one grant bills one batch.
    const id = grant ? batchIdOfGrant(grant) : `batch_${randomBytes(16).toString('hex')}`;
    const created = this.prisma.batch.create({
      data: {
        id,
        workspaceId: principal.workspaceId,
        keyHash: principal.keyHash,
        internId: principal.keyKind === 'intern' ? (principal.internId ?? null) : null,
        principal: principalToStore(principal),
        // The grant the gateway signed for this batch (checked before this handler ran).
        principalGrant: received?.token ?? null,
        endpoint: request.endpoint,
        model: request.model,
        completionWindow: request.completionWindow,
        provider: (request.provider as Prisma.InputJsonValue) ?? Prisma.DbNull,
        metadata: (request.metadata as Prisma.InputJsonValue) ?? Prisma.DbNull,
        inputFileId: request.inputFileId ?? null,
        createdAt: now,
        expiresAt: new Date(now.getTime() + COMPLETION_WINDOW_MS),
        resultsExpireAt: new Date(now.getTime() + RESULT_RETENTION_MS),
      },
    });
    try {
      await created;
    } catch (error) {
      // The same create delivered twice (a resend): the grant's batch exists, it is this one.
      const again =
        grant && error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002'
          ? await this.prisma.batch.findFirst({ where: { id, workspaceId: principal.workspaceId }, select: { id: true } })
          : null;
      if (!again) throw error;
    }
    return { id };
  }

  async append(request: BatchAppendRequest): Promise<{ stored: number }> {
    const batch = await this.upload(request.principal, request.batchId);
    try {
      const { count } = await this.prisma.batchRequest.createMany({
        data: request.lines.map((line) => ({
          id: `batchreq_${randomUUID().replaceAll('-', '')}`,
          batchId: batch.id,
          workspaceId: batch.workspaceId,
          customId: line.custom_id,
          lineNumber: line.index,
          body: line.body as Prisma.InputJsonValue,
        })),
      });
      return { stored: count };
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
        throw GatewayError.badRequest('requests: custom_id must be unique within the batch, and each line is sent once', {
          param: 'requests.custom_id',
        });
      }
      throw error;
    }
  }

  /** The upload is whole: the batch becomes visible, `validating` until a replica starts it. */
  async submit(principal: Principal, batchId: string, total: number): Promise<BatchView> {
    const batch = await this.upload(principal, batchId);
    const stored = await this.prisma.batchRequest.count({ where: { batchId } });
    if (stored !== total) throw new GatewayError(500, `Batch upload incomplete: ${stored} of ${total} lines stored`);
    const submitted = await this.prisma.batch.update({
      where: { id: batch.id },
      data: { submittedAt: this.clock.now(), totalCount: total },
    });
    // The sweeps start it now rather than at their next idle poll: this replica's, and the others' by the event.
    this.signals.batchChanged('submitted');
    return batchView(
      submitted,
      usageOf(submitted, () => []),
      null,
    );
  }

  async abort(principal: Principal, batchId: string): Promise<{ aborted: boolean }> {
    const { count } = await this.prisma.batch.deleteMany({ where: { id: batchId, ...visibleTo(principal), submittedAt: null } });
    return { aborted: count === 1 };
  }

  async list(request: BatchListRequest): Promise<BatchListView> {
    const where: Prisma.BatchWhereInput = { ...visibleTo(request.principal), submittedAt: { not: null } };
    if (request.status?.length) where.status = { in: request.status };
    const created: Prisma.DateTimeFilter = {};
    if (request.createdAfter !== undefined) created.gte = new Date(request.createdAfter * 1000);
    if (request.createdBefore !== undefined) created.lt = new Date(request.createdBefore * 1000);
    if (request.after) {
      const cursor = await this.prisma.batch.findFirst({
        where: { id: request.after, ...visibleTo(request.principal) },
        select: { createdAt: true, id: true },
      });
      if (!cursor) throw GatewayError.badRequest(`after: no batch ${request.after}`, { param: 'after' });
      // Newest first, ties by id descending: the next page is strictly older than the cursor.
      where.OR = [{ createdAt: { lt: cursor.createdAt } }, { createdAt: cursor.createdAt, id: { lt: cursor.id } }];
    }
    if (Object.keys(created).length) where.createdAt = created;
    const rows = await this.prisma.batch.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: request.limit + 1 });
    const page = rows.slice(0, request.limit);
    const data = await Promise.all(page.map(async (batch) => batchView(batch, await this.usage(batch), null)));
    return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null, has_more: rows.length > request.limit };
  }

  /** Spec §4.1: 404, 410 past retention, 402 when the cost guard refuses, else the batch. */
  async get(principal: Principal, batchId: string): Promise<BatchView> {
    const batch = await this.readable(principal, batchId);
    const usage = await this.usage(batch);
    if (!isTerminal(batch.status as BatchStatusName)) return batchView(batch, usage, null);
    await this.guarded(batch, usage, principal);
    const lines = await this.prisma.batchRequest.findMany({
      where: { batchId, status: { in: ['completed', 'failed'] } },
      orderBy: { lineNumber: 'asc' },
      select: { id: true, customId: true, response: true, error: true },
    });
    return batchView(batch, usage, lines.map(resultItem));
  }

  /** One page of results by line number (the gateway streams them as JSONL). */
  async results(
    principal: Principal,
    batchId: string,
    afterIndex: number,
    limit: number,
    status?: 'completed' | 'failed',
  ): Promise<BatchResultsPage> {
    const batch = await this.readable(principal, batchId);
    if (!isTerminal(batch.status as BatchStatusName)) {
      throw new GatewayError(409, `Batch ${batchId} is ${batch.status}: results exist once it is completed, failed, expired or cancelled`);
    }
    if (afterIndex === -1) await this.guarded(batch, await this.usage(batch), principal);
    else if (!batch.chargedAt) throw new GatewayError(402, 'The batch cost has not been settled: read the first page again');
    const lines = await this.prisma.batchRequest.findMany({
      where: { batchId, status: status ?? { in: ['completed', 'failed'] }, lineNumber: { gt: afterIndex } },
      orderBy: { lineNumber: 'asc' },
      take: limit,
      select: { id: true, customId: true, response: true, error: true, lineNumber: true },
    });
    return { items: lines.map(resultItem), nextAfterIndex: lines.length === limit ? lines.at(-1)!.lineNumber : null };
  }

  /** OpenAI's semantics: `cancelling` now; the lines running finish and are kept, the others never run. */
  async cancel(principal: Principal, batchId: string): Promise<BatchView> {
    const batch = await this.readable(principal, batchId);
    const status = batch.status as BatchStatusName;
    if (status !== 'validating' && status !== 'in_progress') {
      if (status === 'cancelling' || status === 'cancelled') return batchView(batch, await this.usage(batch), null);
      throw new GatewayError(409, `Batch ${batchId} is ${status}: only a validating or in_progress batch can be cancelled`);
    }
    // Upstream first: when the provider refuses (502), the batch is left as it was and the client may retry.
    if (batch.upstream) await this.native.cancel(batch, true, principal);
    const moved = await this.store.transition(batchId, 'cancelling', {}, undefined, [status]);
    if (!moved) return this.cancel(principal, batchId);
    this.signals.batchChanged('cancelled');
    return batchView(moved, await this.usage(moved), null);
  }

  /** Terminal batches only (409 otherwise); the upstream batch and files go first (502 when that fails); billing stays with management. */
  async delete(principal: Principal, batchId: string): Promise<BatchDeletedView> {
    const batch = await this.owned(principal, batchId);
    if (!isTerminal(batch.status as BatchStatusName)) {
      throw new GatewayError(
        409,
        `Batch ${batchId} is ${batch.status}: only a completed, failed, expired or cancelled batch can be deleted`,
      );
    }
    // An unread terminal batch is charged first: deleting must not drop what its lines cost (402 when the balance cannot pay it).
    if (batch.finalizedAt) await this.guarded(batch, await this.usage(batch), principal);
    const upstream = batch.upstream ? await this.native.delete(batch, principal) : undefined;
    await this.prisma.batch.delete({ where: { id: batchId } });
    return { id: batchId, object: 'batch', deletion: { service: 'deleted', ...(upstream ? { upstream } : {}) } };
  }

  private async guarded(batch: Batch, usage: BatchView['usage'], caller: Principal): Promise<void> {
    const outcome = await this.guard.settle(batch, caller);
    if (outcome.kind === 'insufficient') {
      throw new GatewayError(
        402,
        `The batch cost (${outcome.cost.toFixed()} credits) exceeds the workspace's available balance (${outcome.balance.toFixed()}): add credits and read the batch again`,
        {
          metadata: { batch: batchView(batch, usage, null) },
        },
      );
    }
  }

  private usage(batch: Batch) {
    if (batch.usage) return Promise.resolve(usageOf(batch, () => []));
    return this.store.lineUsages(batch.id).then((usages) => usageOf(batch, () => usages));
  }

  /** A submitted batch the caller may see (`visibleTo`), or 404. */
  private async owned(principal: Principal, batchId: string): Promise<Batch> {
    const batch = await this.prisma.batch.findFirst({
      where: { id: batchId, ...visibleTo(principal), submittedAt: { not: null } },
    });
    if (!batch) throw GatewayError.notFound(`No batch ${batchId}`);
    return batch;
  }

  /** Owned and within retention, else 410. */
  private async readable(principal: Principal, batchId: string): Promise<Batch> {
    const batch = await this.owned(principal, batchId);
    if (batch.resultsDeletedAt || batch.resultsExpireAt <= this.clock.now()) {
      throw new GatewayError(410, `Batch ${batchId}: its results were deleted 30 days after its creation`);
    }
    return batch;
  }

  /** A batch the caller may see, still being uploaded. */
  private async upload(principal: Principal, batchId: string): Promise<Batch> {
    const batch = await this.prisma.batch.findFirst({ where: { id: batchId, ...visibleTo(principal), submittedAt: null } });
    if (!batch) throw GatewayError.notFound(`No batch upload ${batchId}`);
    return batch;
  }
}

/**
 * The batches a key may see and act on: its workspace's; an intern key only its intern's
 * (spec §4.4: an intern's key is confined to that intern), others answer 404 to it.
 */
export function visibleTo(principal: Principal): Prisma.BatchWhereInput {
  if (principal.keyKind !== 'intern') return { workspaceId: principal.workspaceId };
  return { workspaceId: principal.workspaceId, internId: principal.internId ?? { in: [] } };
}

/** What lines need to act as the submitter: the principal minus what changes per request. */
function principalToStore(principal: Principal): Prisma.InputJsonValue {
  const { spendBlocked: _blocked, rateLimits: _limits, ...kept } = principal;
  return JSON.parse(JSON.stringify(kept)) as Prisma.InputJsonValue;
}
