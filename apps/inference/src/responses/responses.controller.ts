import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ServedSubject, TrustedPayload } from '@gw/messaging';
import { ChatCreateRequest, ChatStreamRequest, type ResponsesResponseView, ResponsesCreate, ResponsesStream } from '@gw/contracts';
import type { Observable } from 'rxjs';
import { ResponsesStreamService } from './responses-stream.service.js';
import { ResponsesService } from './responses.service.js';
import { IdempotentRequests } from '../idempotency/idempotent-requests.service.js';
import { withStreamGuard } from '../idempotency/idempotent-run.js';
import { ResponseCache } from '../response-cache/response-cache.service.js';
import { ALREADY_FRAMED } from '../chat/stream-observable.js';

/** The Responses API: `body` is the client's Responses body, validated by the gateway. */
@Controller()
export class ResponsesController {
  constructor(
    private readonly responses: ResponsesService,
    private readonly responsesStream: ResponsesStreamService,
    private readonly idempotency: IdempotentRequests,
    private readonly cache: ResponseCache,
  ) {}

  /**
   * Served from its own NATS subscription, not Nest's dispatch (ADR 0079), and not validated again
   * (ADR 0056): its callers, the gateway and batch, validate with ChatCreateRequest's contract.
   */
  @ServedSubject(ResponsesCreate, { trusted: true })
  create(request: ChatCreateRequest): Promise<ResponsesResponseView | unknown> {
    return this.idempotency.answer(request, () => this.cache.answer(request, 'responses', () => this.responses.create(request)));
  }

  /**
   * One reply packet per semantic event, already framed as SSE (`event:` + `data:`). Not validated
   * again (ADR 0068): its only caller, the gateway, validated the body at the edge and built the rest.
   */
  @MessagePattern(ResponsesStream.subject)
  stream(@TrustedPayload() request: ChatStreamRequest): Observable<string> {
    return withStreamGuard(this.idempotency.streamGuard(request), () =>
      this.cache.stream(request, 'responses', ALREADY_FRAMED, () => this.responsesStream.stream(request)),
    );
  }
}
