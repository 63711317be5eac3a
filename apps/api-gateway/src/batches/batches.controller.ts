import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import {
  BATCH_ID_PATTERN,
  BATCH_STATUSES,
  SUBJECTS,
  type BatchDeletedView,
  type BatchListView,
  type BatchResultsPage,
  type BatchStatusName,
  type BatchView,
  type Principal,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient } from '@gw/messaging';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { GATEWAY_ENV, type GatewayEnv } from '../env.js';
import { BatchRateLimitGuard } from './batch-rate-limit.guard.js';
import { asBatchServiceError } from './batch-service-error.js';
import { takeBatchUpload } from './batch-upload.hook.js';
import { BatchUploader } from './batch-uploader.js';

const RESULTS_PAGE = 500;

/** The batch API (issue 13, ADR 0044), answered by the batch service. */
@Controller('v1/batches')
@UseGuards(BatchRateLimitGuard)
export class BatchesController {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {}

  @Post()
  @HttpCode(202)
  async create(@CurrentPrincipal() principal: Principal, @Req() request: FastifyRequest): Promise<BatchView> {
    const upload = takeBatchUpload(request);
    if (!upload) throw GatewayError.badRequest('Request body is required');
    const limits = { maxLines: this.env.BATCH_MAX_LINES, maxBytes: this.env.BATCH_MAX_BYTES, maxLineBytes: this.env.BATCH_MAX_LINE_BYTES };
    return new BatchUploader(this.rpc, principal, limits).upload(upload);
  }

  @Get()
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>): Promise<BatchListView> {
    return this.send<BatchListView>(SUBJECTS.batch.batchesList, { principal, ...listQuery(query) });
  }

  @Get(':id')
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<BatchView> {
    return this.send<BatchView>(SUBJECTS.batch.batchesGet, { principal, batchId: batchId(id) });
  }

  /** Beyond the spec: every result as JSONL, read from the batch service page by page. */
  @Get(':id/results')
  async results(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Res() reply: FastifyReply): Promise<void> {
    const ref = { principal, batchId: batchId(id) };
    // The first page is fetched before any byte is sent, so a 402 / 404 / 410 is a proper answer.
    let page = await this.send<BatchResultsPage>(SUBJECTS.batch.batchesResults, { ...ref, afterIndex: -1, limit: RESULTS_PAGE });
    reply.raw.writeHead(200, { 'content-type': 'application/jsonl; charset=utf-8' });
    try {
      for (;;) {
        const text = page.items.map((item) => `${JSON.stringify(item)}\n`).join('');
        if (text && !reply.raw.write(text)) await new Promise((resolve) => reply.raw.once('drain', resolve));
        if (page.nextAfterIndex === null || reply.raw.destroyed) break;
        page = await this.send<BatchResultsPage>(SUBJECTS.batch.batchesResults, { ...ref, afterIndex: page.nextAfterIndex, limit: RESULTS_PAGE });
      }
      reply.raw.end();
    } catch (error) {
      // The status is sent: a later page that fails cuts the body short, never ends it cleanly.
      reply.raw.destroy(error instanceof Error ? error : new Error(String(error)));
    }
  }

  @Post(':id/cancel')
  @HttpCode(200)
  cancel(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<BatchView> {
    return this.send<BatchView>(SUBJECTS.batch.batchesCancel, { principal, batchId: batchId(id) });
  }

  @Delete(':id')
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<BatchDeletedView> {
    return this.send<BatchDeletedView>(SUBJECTS.batch.batchesDelete, { principal, batchId: batchId(id) });
  }

  /** Spec §4.1: the batch service unavailable (no replica, silent, timed out) is a 502, retryable. */
  private async send<T>(subject: string, payload: unknown): Promise<T> {
    try {
      return await this.rpc.send<T>(subject, payload);
    } catch (error) {
      throw asBatchServiceError(error);
    }
  }
}


/** An id of another shape names no batch: 404, as for an unknown one. */
function batchId(id: string): string {
  if (!BATCH_ID_PATTERN.test(id)) throw GatewayError.notFound(`No batch ${id}`);
  return id;
}

const LIST_PARAMS = new Set(['limit', 'after', 'status', 'created_after', 'created_before']);

/** `limit` 1-100 (default 20), `after`, repeatable `status`, `created_after` / `created_before` (Unix seconds or ISO 8601). */
function listQuery(query: Record<string, unknown>): Record<string, unknown> {
  for (const name of Object.keys(query)) if (!LIST_PARAMS.has(name)) throw GatewayError.badRequest(`${name}: unknown query parameter`, { param: name });
  const single = (name: string): string | undefined => {
    const value = query[name];
    if (Array.isArray(value)) throw GatewayError.badRequest(`${name}: give it once`, { param: name });
    return value === undefined ? undefined : String(value);
  };
  const out: Record<string, unknown> = {};
  const limit = single('limit');
  out.limit = limit === undefined ? 20 : Number(limit);
  if (!Number.isInteger(out.limit) || (out.limit as number) < 1 || (out.limit as number) > 100) throw GatewayError.badRequest('limit: must be an integer from 1 to 100', { param: 'limit' });
  const after = single('after');
  if (after !== undefined) {
    if (!BATCH_ID_PATTERN.test(after)) throw GatewayError.badRequest('after: must be a batch id', { param: 'after' });
    out.after = after;
  }
  if (query.status !== undefined) {
    const statuses = (Array.isArray(query.status) ? query.status : [query.status]).flatMap((value) => String(value).split(','));
    for (const status of statuses) {
      if (!(BATCH_STATUSES as readonly string[]).includes(status)) throw GatewayError.badRequest(`status: must be one of ${BATCH_STATUSES.join(', ')}`, { param: 'status' });
    }
    out.status = statuses as BatchStatusName[];
  }
  for (const [name, key] of [['created_after', 'createdAfter'], ['created_before', 'createdBefore']] as const) {
    const value = single(name);
    if (value === undefined) continue;
    const seconds = /^\d+$/.test(value) ? Number(value) : Math.floor(Date.parse(value) / 1000);
    if (!Number.isSafeInteger(seconds) || seconds < 0) throw GatewayError.badRequest(`${name}: must be Unix seconds or an ISO 8601 date-time`, { param: name });
    out[key] = seconds;
  }
  return out;
}
