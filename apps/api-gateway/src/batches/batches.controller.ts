import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import {
  BATCH_ID_PATTERN,
  BATCH_STATUSES,
  type BatchDeletedView,
  type BatchListView,
  type BatchStatusName,
  type BatchView,
  type Principal,
  BatchesCancel,
  BatchesDelete,
  BatchesGet,
  BatchesList,
  type BatchListRequest,
  type RpcMessage,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { ApiBody, ApiProduces, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { RpcClient } from '@gw/messaging';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { GATEWAY_ENV, type GatewayEnv } from '../env.js';
import { BatchRateLimitGuard } from './batch-rate-limit.guard.js';
import { streamBatchResults } from './batch-results-stream.js';
import { asBatchServiceError } from './batch-service-error.js';
import { takeBatchUpload } from './batch-upload.hook.js';
import { BatchUploader } from './batch-uploader.js';
import { Answers, Doc, Fails, PathParam } from '../openapi/api-docs.js';

const BATCH_ID = { type: 'string', pattern: BATCH_ID_PATTERN.source };
const TERMINAL_READ_FAILS = {
  402: 'The finished batch costs more than the workspace can pay: `metadata` holds the batch with `results: null`; nothing is charged until a top-up',
  404: 'No such batch in this workspace',
  410: 'The results are past their 30-day retention',
};

/** The batch API (issue 13), answered by the batch service. */
@Controller('v1/batches')
@UseGuards(BatchRateLimitGuard)
export class BatchesController {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {}

  @Post()
  @HttpCode(202)
  @Doc(
    'Submit a batch',
    "The body is read as a stream: `endpoint` and `model` must come before `requests`. Each line is validated as its endpoint validates a live request. OpenAI's batch flow: `input_file_id` (a file of POST /v1/files) in place of `requests` and `model`, one `{custom_id, method, url, body}` a line, the model the first line's.",
  )
  @ApiBody({
    required: true,
    schema: {
      type: 'object',
      required: ['completion_window', 'endpoint'],
      properties: {
        input_file_id: { type: 'string', description: 'In place of `requests` (and `model`): an uploaded JSONL file' },
        completion_window: { type: 'string', enum: ['24h'] },
        endpoint: { type: 'string', enum: ['/v1/chat/completions', '/v1/responses', '/v1/messages', '/v1/embeddings'] },
        model: { type: 'string' },
        provider: {
          type: 'object',
          properties: { only: { type: 'array', items: { type: 'string' } }, allow_fallbacks: { type: 'boolean' } },
        },
        metadata: { type: 'object', additionalProperties: { type: 'string' } },
        requests: {
          type: 'array',
          minItems: 1,
          items: {
            type: 'object',
            required: ['custom_id', 'body'],
            properties: { custom_id: { type: 'string' }, body: { type: 'object' } },
          },
        },
      },
    },
  })
  @Answers(202, 'BatchAnswer', 'The batch, `validating`')
  @Fails({
    402: 'Nothing is left to spend for this key: reason `insufficient_credits`, `key_limit_reached`, `workspace_budget_reached`, `member_budget_reached` or `guardrail_limit_reached`',
    404: '`input_file_id` names no file of this key',
  })
  async create(@CurrentPrincipal() principal: Principal, @Req() request: FastifyRequest): Promise<BatchView> {
    const upload = takeBatchUpload(request);
    if (!upload) throw GatewayError.badRequest('Request body is required');
    const limits = { maxLines: this.env.BATCH_MAX_LINES, maxBytes: this.env.BATCH_MAX_BYTES, maxLineBytes: this.env.BATCH_MAX_LINE_BYTES };
    return new BatchUploader(this.rpc, principal, limits).upload(upload);
  }

  @Get()
  @Doc('List batches, newest first')
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } })
  @ApiQuery({ name: 'after', required: false, schema: BATCH_ID, description: 'The last id of the previous page' })
  @ApiQuery({
    name: 'status',
    required: false,
    schema: { type: 'array', items: { type: 'string', enum: [...BATCH_STATUSES] } },
    description: 'Repeatable',
  })
  @ApiQuery({ name: 'created_after', required: false, schema: { type: 'string' }, description: 'Unix seconds or ISO 8601' })
  @ApiQuery({ name: 'created_before', required: false, schema: { type: 'string' }, description: 'Unix seconds or ISO 8601' })
  @Answers(200, 'BatchListAnswer', 'A page of batches (`results: null` in each)')
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>): Promise<BatchListView> {
    return this.send(BatchesList, { principal, ...listQuery(query) });
  }

  @Get(':id')
  @Doc('A batch, with its results once it has ended')
  @PathParam('id', BATCH_ID, 'The batch id')
  @Answers(200, 'BatchAnswer', 'The batch (spec §2.1)')
  @Fails(TERMINAL_READ_FAILS)
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<BatchView> {
    return this.send(BatchesGet, { principal, batchId: batchId(id) });
  }

  /** Beyond the spec: every result as JSONL, read from the batch service page by page. */
  @Get(':id/results')
  @Doc('Every result as JSON Lines (beyond the spec)')
  @PathParam('id', BATCH_ID, 'The batch id')
  @ApiProduces('application/jsonl')
  @ApiResponse({
    status: 200,
    description: 'One result item (spec §2.1.1) per line',
    content: { 'application/jsonl': { schema: { type: 'string' } } },
  })
  @Fails(TERMINAL_READ_FAILS)
  results(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Res() reply: FastifyReply): Promise<void> {
    return streamBatchResults(this.rpc, { principal, batchId: batchId(id) }, reply);
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @Doc('Cancel a batch: `cancelling`, then `cancelled` with the results finished so far')
  @PathParam('id', BATCH_ID, 'The batch id')
  @Answers(200, 'BatchAnswer', 'The batch, `cancelling` or already ended')
  @Fails({ 404: 'No such batch in this workspace', 409: 'The batch has ended' })
  cancel(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<BatchView> {
    return this.send(BatchesCancel, { principal, batchId: batchId(id) });
  }

  @Delete(':id')
  @Doc('Delete an ended batch, its results and its upstream batch and files')
  @PathParam('id', BATCH_ID, 'The batch id')
  @Answers(200, 'BatchDeletedAnswer', 'Deleted')
  @Fails({ 404: 'No such batch in this workspace', 409: 'The batch has not ended' })
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<BatchDeletedView> {
    return this.send(BatchesDelete, { principal, batchId: batchId(id) });
  }

  /** Spec §4.1: the batch service unavailable (no replica, silent, timed out) is a 502, retryable. */
  private async send<Request, Reply>(message: RpcMessage<Request, Reply>, payload: NoInfer<Request>): Promise<Reply> {
    try {
      return await this.rpc.send(message, payload);
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
function listQuery(query: Record<string, unknown>): Omit<BatchListRequest, 'principal'> {
  for (const name of Object.keys(query))
    if (!LIST_PARAMS.has(name)) throw GatewayError.badRequest(`${name}: unknown query parameter`, { param: name });
  const single = (name: string): string | undefined => {
    const value = query[name];
    if (Array.isArray(value)) throw GatewayError.badRequest(`${name}: give it once`, { param: name });
    return value === undefined ? undefined : String(value);
  };
  const out: Record<string, unknown> = {};
  const limit = single('limit');
  out.limit = limit === undefined ? 20 : Number(limit);
  if (!Number.isInteger(out.limit) || (out.limit as number) < 1 || (out.limit as number) > 100)
    throw GatewayError.badRequest('limit: must be an integer from 1 to 100', { param: 'limit' });
  const after = single('after');
  if (after !== undefined) {
    if (!BATCH_ID_PATTERN.test(after)) throw GatewayError.badRequest('after: must be a batch id', { param: 'after' });
    out.after = after;
  }
  if (query.status !== undefined) {
    const statuses = (Array.isArray(query.status) ? query.status : [query.status]).flatMap((value) => String(value).split(','));
    for (const status of statuses) {
      if (!(BATCH_STATUSES as readonly string[]).includes(status))
        throw GatewayError.badRequest(`status: must be one of ${BATCH_STATUSES.join(', ')}`, { param: 'status' });
    }
    out.status = statuses as BatchStatusName[];
  }
  for (const [name, key] of [
    ['created_after', 'createdAfter'],
    ['created_before', 'createdBefore'],
  ] as const) {
    const value = single(name);
    if (value === undefined) continue;
    const seconds = /^\d+$/.test(value) ? Number(value) : Math.floor(Date.parse(value) / 1000);
    if (!Number.isSafeInteger(seconds) || seconds < 0)
      throw GatewayError.badRequest(`${name}: must be Unix seconds or an ISO 8601 date-time`, { param: name });
    out[key] = seconds;
  }
  return out as Omit<BatchListRequest, 'principal'>;
}
