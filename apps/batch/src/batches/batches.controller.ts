import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  BatchAppendRequest,
  BatchCreateRequest,
  BatchListRequest,
  BatchRef,
  BatchResultsPageRequest,
  BatchSubmitRequest,
  type BatchCreatedReply,
  type BatchDeletedView,
  type BatchListView,
  type BatchResultsPage,
  type BatchView,
  BatchesAbort,
  BatchesAppend,
  BatchesCancel,
  BatchesCreate,
  BatchesDelete,
  BatchesGet,
  BatchesList,
  BatchesResults,
  BatchesSubmit,
} from '@gw/contracts';
import { BatchesService } from './batches.service.js';

/** The batch API on NATS (gateway -> batch). */
@Controller()
export class BatchesController {
  constructor(private readonly batches: BatchesService) {}

  @MessagePattern(BatchesCreate.subject)
  create(@Payload() request: BatchCreateRequest): Promise<BatchCreatedReply> {
    return this.batches.create(request);
  }

  @MessagePattern(BatchesAppend.subject)
  append(@Payload() request: BatchAppendRequest): Promise<{ stored: number }> {
    return this.batches.append(request);
  }

  @MessagePattern(BatchesSubmit.subject)
  submit(@Payload() request: BatchSubmitRequest): Promise<BatchView> {
    return this.batches.submit(request.principal, request.batchId, request.total);
  }

  @MessagePattern(BatchesAbort.subject)
  abort(@Payload() request: BatchRef): Promise<{ aborted: boolean }> {
    return this.batches.abort(request.principal, request.batchId);
  }

  @MessagePattern(BatchesList.subject)
  list(@Payload() request: BatchListRequest): Promise<BatchListView> {
    return this.batches.list(request);
  }

  @MessagePattern(BatchesGet.subject)
  get(@Payload() request: BatchRef): Promise<BatchView> {
    return this.batches.get(request.principal, request.batchId);
  }

  @MessagePattern(BatchesResults.subject)
  results(@Payload() request: BatchResultsPageRequest): Promise<BatchResultsPage> {
    return this.batches.results(request.principal, request.batchId, request.afterIndex, request.limit, request.status);
  }

  @MessagePattern(BatchesCancel.subject)
  cancel(@Payload() request: BatchRef): Promise<BatchView> {
    return this.batches.cancel(request.principal, request.batchId);
  }

  @MessagePattern(BatchesDelete.subject)
  delete(@Payload() request: BatchRef): Promise<BatchDeletedView> {
    return this.batches.delete(request.principal, request.batchId);
  }
}
