import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  NativeBatchCancelRequest,
  NativeBatchDeleteRequest,
  NativeBatchStatusRequest,
  NativeBatchSubmitRequest,
  SUBJECTS,
  type NativeBatchCancelReply,
  type NativeBatchDeleteReply,
  type NativeBatchStatusReply,
  type NativeBatchSubmitReply,
} from '@gw/contracts';
import { NativeBatchesService } from './native-batches.service.js';

/** Batch -> inference: batches run at a provider's batch API (ADR 0047). */
@Controller()
export class NativeBatchesController {
  constructor(private readonly batches: NativeBatchesService) {}

  @MessagePattern(SUBJECTS.inference.batchesNativeSubmit)
  submit(@Payload() request: NativeBatchSubmitRequest): Promise<NativeBatchSubmitReply> {
    return this.batches.submit(request);
  }

  @MessagePattern(SUBJECTS.inference.batchesNativeStatus)
  status(@Payload() request: NativeBatchStatusRequest): Promise<NativeBatchStatusReply> {
    return this.batches.status(request);
  }

  @MessagePattern(SUBJECTS.inference.batchesNativeCancel)
  cancel(@Payload() request: NativeBatchCancelRequest): Promise<NativeBatchCancelReply> {
    return this.batches.cancel(request);
  }

  @MessagePattern(SUBJECTS.inference.batchesNativeDelete)
  delete(@Payload() request: NativeBatchDeleteRequest): Promise<NativeBatchDeleteReply> {
    return this.batches.delete(request);
  }
}
