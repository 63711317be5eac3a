import { Controller, Delete, Get, HttpCode, Inject, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import {
  BATCH_FILE_ID_PATTERN,
  FILE_ID_PATTERN,
  FILE_LIST_MAX,
  FILE_LIST_PURPOSES,
  FILE_PURPOSES,
  batchOfFile,
  type FileDeletedView,
  type FileListRequest,
  type FileListView,
  type FileView,
  type Principal,
  FilesContent,
  FilesDelete,
  FilesGet,
  FilesList,
  type RpcMessage,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { RpcClient } from '@gw/messaging';
import { ApiBody, ApiConsumes, ApiProduces, ApiQuery, ApiResponse } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CurrentPrincipal } from '../auth/current-principal.decorator.js';
import { BatchRateLimitGuard } from '../batches/batch-rate-limit.guard.js';
import { streamBatchResults } from '../batches/batch-results-stream.js';
import { asBatchServiceError } from '../batches/batch-service-error.js';
import { GATEWAY_ENV, type GatewayEnv } from '../env.js';
import { Answers, Doc, Fails, PathParam } from '../openapi/api-docs.js';
import { FileUploader } from './file-uploader.js';

const FILE_ID = { type: 'string', pattern: `${FILE_ID_PATTERN.source}|${BATCH_FILE_ID_PATTERN.source}` };
const NOT_FOUND = { 404: 'No such file for this key' };

/**
 * OpenAI's files API for the official batch flow (issue 28), answered by the batch
 * service: batch input files uploaded here, and each ended batch's output and error files.
 */
@Controller('v1/files')
@UseGuards(BatchRateLimitGuard)
export class FilesController {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(GATEWAY_ENV) private readonly env: GatewayEnv,
  ) {}

  @Post()
  @HttpCode(200)
  @Doc('Upload a batch input file', 'A `multipart/form-data` form with `file` (JSONL) and `purpose` (`batch`), streamed to storage.')
  @ApiConsumes('multipart/form-data')
  @ApiBody({
    required: true,
    schema: {
      type: 'object',
      required: ['file', 'purpose'],
      properties: { file: { type: 'string', format: 'binary' }, purpose: { type: 'string', enum: [...FILE_PURPOSES] } },
    },
  })
  @Answers(200, 'FileAnswer', 'The file')
  @Fails({ 413: 'The file is larger than FILES_MAX_BYTES', 415: 'The body is not a multipart/form-data form' })
  create(@CurrentPrincipal() principal: Principal, @Req() request: FastifyRequest): Promise<FileView> {
    if (!request.isMultipart()) throw new GatewayError(415, 'Unsupported Content-Type: send multipart/form-data with file and purpose');
    return new FileUploader(this.rpc, principal, this.env.FILES_MAX_BYTES).upload(request.parts());
  }

  @Get()
  @Doc('List files', "Uploads, and ended batches' output and error files (purpose `batch_output`), newest first by default")
  @ApiQuery({ name: 'limit', required: false, schema: { type: 'integer', minimum: 1, maximum: FILE_LIST_MAX, default: FILE_LIST_MAX } })
  @ApiQuery({
    name: 'after',
    required: false,
    schema: { type: 'string', pattern: `${FILE_ID_PATTERN.source}|${BATCH_FILE_ID_PATTERN.source}` },
    description: 'The last id of the previous page',
  })
  @ApiQuery({ name: 'order', required: false, schema: { type: 'string', enum: ['asc', 'desc'], default: 'desc' } })
  @ApiQuery({ name: 'purpose', required: false, schema: { type: 'string', enum: [...FILE_LIST_PURPOSES] } })
  @Answers(200, 'FileListAnswer', 'A page of files')
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>): Promise<FileListView> {
    return this.send(FilesList, { principal, ...listQuery(query) });
  }

  @Get(':id')
  @Doc('A file')
  @PathParam('id', FILE_ID, 'The file id')
  @Answers(200, 'FileAnswer', 'The file')
  @Fails(NOT_FOUND)
  get(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<FileView> {
    return this.send(FilesGet, { principal, fileId: fileId(id) });
  }

  @Get(':id/content')
  @Doc("A file's content: an upload as sent, a batch's output or error file as JSONL (one result item a line)")
  @PathParam('id', FILE_ID, 'The file id')
  @ApiProduces('application/octet-stream', 'application/jsonl')
  @ApiResponse({
    status: 200,
    description: 'The bytes',
    content: { 'application/octet-stream': { schema: { type: 'string' } }, 'application/jsonl': { schema: { type: 'string' } } },
  })
  @Fails({
    ...NOT_FOUND,
    402: "The batch's cost exceeds the workspace's balance",
    410: "The batch's results are past their 30-day retention",
  })
  async content(@CurrentPrincipal() principal: Principal, @Param('id') id: string, @Res() reply: FastifyReply): Promise<void> {
    const ofBatch = batchOfFile(fileId(id));
    if (ofBatch) {
      const status = ofBatch.kind === 'output' ? 'completed' : 'failed';
      return streamBatchResults(this.rpc, { principal, batchId: ofBatch.batchId, status }, reply);
    }
    // The first part is read before any byte is sent, so a 404 is a proper answer.
    let part = await this.send(FilesContent, { principal, fileId: id, part: 0 });
    reply.raw.writeHead(200, { 'content-type': 'application/octet-stream' });
    try {
      for (;;) {
        if (part.data && !reply.raw.write(Buffer.from(part.data, 'base64')))
          await new Promise((resolve) => reply.raw.once('drain', resolve));
        if (part.nextPart === null || reply.raw.destroyed) break;
        part = await this.send(FilesContent, { principal, fileId: id, part: part.nextPart });
      }
      reply.raw.end();
    } catch (error) {
      reply.raw.destroy(error instanceof Error ? error : new Error(String(error)));
    }
  }

  @Delete(':id')
  @Doc('Delete an uploaded file (a batch keeps its own lines: deleting its input file does not touch it)')
  @PathParam('id', FILE_ID, 'The file id')
  @Answers(200, 'FileDeletedAnswer', 'Deleted')
  @Fails({ ...NOT_FOUND, 400: "A batch's output or error file: it goes with its batch (DELETE /v1/batches/{id})" })
  delete(@CurrentPrincipal() principal: Principal, @Param('id') id: string): Promise<FileDeletedView> {
    const ofBatch = batchOfFile(fileId(id));
    if (ofBatch)
      throw GatewayError.badRequest(
        `${id} is the ${ofBatch.kind} file of ${ofBatch.batchId}: it is deleted with the batch (DELETE /v1/batches/${ofBatch.batchId})`,
      );
    return this.send(FilesDelete, { principal, fileId: id });
  }

  private async send<Request, Reply>(message: RpcMessage<Request, Reply>, payload: NoInfer<Request>): Promise<Reply> {
    try {
      return await this.rpc.send(message, payload);
    } catch (error) {
      throw asBatchServiceError(error);
    }
  }
}

/** An id of another shape names no file: 404, as for an unknown one. */
function fileId(id: string): string {
  if (!FILE_ID_PATTERN.test(id) && !BATCH_FILE_ID_PATTERN.test(id)) throw GatewayError.notFound(`No file ${id}`);
  return id;
}

const LIST_PARAMS = new Set(['limit', 'after', 'order', 'purpose']);

/** OpenAI's list parameters: `limit` 1-10000 (default 10000), `after`, `order` (default desc), `purpose`. */
function listQuery(query: Record<string, unknown>): Omit<FileListRequest, 'principal'> {
  for (const [name, value] of Object.entries(query)) {
    if (!LIST_PARAMS.has(name)) throw GatewayError.badRequest(`${name}: unknown query parameter`, { param: name });
    if (Array.isArray(value)) throw GatewayError.badRequest(`${name}: give it once`, { param: name });
  }
  const limit = query.limit === undefined ? FILE_LIST_MAX : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > FILE_LIST_MAX)
    throw GatewayError.badRequest(`limit: must be an integer from 1 to ${FILE_LIST_MAX}`, { param: 'limit' });
  const order = query.order ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw GatewayError.badRequest('order: must be asc or desc', { param: 'order' });
  const out: Omit<FileListRequest, 'principal'> = { limit, order };
  if (query.after !== undefined) {
    const after = String(query.after);
    if (!FILE_ID_PATTERN.test(after) && !BATCH_FILE_ID_PATTERN.test(after))
      throw GatewayError.badRequest('after: must be a file id', { param: 'after' });
    out.after = String(query.after);
  }
  if (query.purpose !== undefined) {
    if (!(FILE_LIST_PURPOSES as readonly unknown[]).includes(query.purpose))
      throw GatewayError.badRequest(`purpose: must be one of ${FILE_LIST_PURPOSES.join(', ')}`, { param: 'purpose' });
    out.purpose = query.purpose as FileListRequest['purpose'];
  }
  return out;
}
