import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type ServedStream } from '@gw/messaging';
import { ChatCreateRequest, ChatStreamRequest, type ResponsesResponseView, ResponsesCreate, ResponsesStream } from '@gw/contracts';
import { ResponsesStreamService } from './responses-stream.service.js';
import { ResponsesService } from './responses.service.js';
import { IdempotentRequests } from '../idempotency/idempotent-requests.service.js';
import { withStreamGuard } from '../idempotency/idempotent-run.js';
import { ResponseCache } from '../response-cache/response-cache.service.js';
import { ALREADY_FRAMED } from '../shared-pipeline/served-stream.js';

/** The Responses API: `body` is the client's Responses body, validated by the gateway. */
@Controller()
export class ResponsesController {
  constructor(
    private readonly responses: ResponsesService,
    private readonly responsesStream: ResponsesStreamService,
    private readonly idempotency: IdempotentRequests,
    private readonly cache: ResponseCache,
  ) {}

  /** Not validated again (trusted in the catalog): its callers, the gateway and batch, validate with ChatCreateRequest's contract. */
  @MessagePattern(ResponsesCreate.subject)
  create(@Payload() request: ChatCreateRequest): Promise<ResponsesResponseView | unknown> {
    return this.idempotency.answer(request, () => this.cache.answer(request, 'responses', () => this.responses.create(request)));
  }

  /**
   * One frame per semantic event, already SSE (`event:` + `data:`). Not validated again (trusted
   * in the catalog): its only caller, the gateway, validated the body at the edge and built the rest.
   */
  @MessagePattern(ResponsesStream.subject)
  stream(@Payload() request: ChatStreamRequest): ServedStream {
    return withStreamGuard(this.idempotency.streamGuard(request), () =>
      this.cache.stream(request, 'responses', ALREADY_FRAMED, () => this.responsesStream.stream(request)),
    );
  }
}
