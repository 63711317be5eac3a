import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  NativeBatchCancelRequest,
  NativeBatchDeleteRequest,
  NativeBatchStatusRequest,
  NativeBatchSubmitRequest,
  type NativeBatchCancelReply,
  type NativeBatchDeleteReply,
  type NativeBatchStatusReply,
  type NativeBatchSubmitReply,
  NativeBatchCancel,
  NativeBatchDelete,
  NativeBatchStatus,
  NativeBatchSubmit,
} from '@gw/contracts';
import { NativeBatchesService } from './native-batches.service.js';

/** Batch -> inference: batches run at a provider's batch API. */
@Controller()
export class NativeBatchesController {
  constructor(private readonly batches: NativeBatchesService) {}

  @MessagePattern(NativeBatchSubmit.subject)
  submit(@Payload() request: NativeBatchSubmitRequest): Promise<NativeBatchSubmitReply> {
    return this.batches.submit(request);
  }

  @MessagePattern(NativeBatchStatus.subject)
  status(@Payload() request: NativeBatchStatusRequest): Promise<NativeBatchStatusReply> {
    return this.batches.status(request);
  }

  @MessagePattern(NativeBatchCancel.subject)
  cancel(@Payload() request: NativeBatchCancelRequest): Promise<NativeBatchCancelReply> {
    return this.batches.cancel(request);
  }

  @MessagePattern(NativeBatchDelete.subject)
  delete(@Payload() request: NativeBatchDeleteRequest): Promise<NativeBatchDeleteReply> {
    return this.batches.delete(request);
  }
}
