import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  BatchAppendRequest,
  BatchCreateRequest,
  BatchListRequest,
  BatchRef,
  BatchResultsPageRequest,
  BatchSubmitRequest,
  SUBJECTS,
  type BatchCreatedReply,
  type BatchDeletedView,
  type BatchListView,
  type BatchResultsPage,
  type BatchView,
} from '@gw/contracts';
import { BatchesService } from './batches.service.js';

/** The batch API on NATS (gateway -> batch), ADR 0044. */
@Controller()
export class BatchesController {
  constructor(private readonly batches: BatchesService) {}

  @MessagePattern(SUBJECTS.batch.batchesCreate)
  create(@Payload() request: BatchCreateRequest): Promise<BatchCreatedReply> {
    return this.batches.create(request);
  }

  @MessagePattern(SUBJECTS.batch.batchesAppend)
  append(@Payload() request: BatchAppendRequest): Promise<{ stored: number }> {
    return this.batches.append(request);
  }

  @MessagePattern(SUBJECTS.batch.batchesSubmit)
  submit(@Payload() request: BatchSubmitRequest): Promise<BatchView> {
    return this.batches.submit(request.principal, request.batchId, request.total);
  }

  @MessagePattern(SUBJECTS.batch.batchesAbort)
  abort(@Payload() request: BatchRef): Promise<{ aborted: boolean }> {
    return this.batches.abort(request.principal, request.batchId);
  }

  @MessagePattern(SUBJECTS.batch.batchesList)
  list(@Payload() request: BatchListRequest): Promise<BatchListView> {
    return this.batches.list(request);
  }

  @MessagePattern(SUBJECTS.batch.batchesGet)
  get(@Payload() request: BatchRef): Promise<BatchView> {
    return this.batches.get(request.principal, request.batchId);
  }

  @MessagePattern(SUBJECTS.batch.batchesResults)
  results(@Payload() request: BatchResultsPageRequest): Promise<BatchResultsPage> {
    return this.batches.results(request.principal, request.batchId, request.afterIndex, request.limit);
  }

  @MessagePattern(SUBJECTS.batch.batchesCancel)
  cancel(@Payload() request: BatchRef): Promise<BatchView> {
    return this.batches.cancel(request.principal, request.batchId);
  }

  @MessagePattern(SUBJECTS.batch.batchesDelete)
  delete(@Payload() request: BatchRef): Promise<BatchDeletedView> {
    return this.batches.delete(request.principal, request.batchId);
  }
}
