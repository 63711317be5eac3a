import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { TrustedPayload } from '@gw/messaging';
import { ChatStreamRequest, ChatStream } from '@gw/contracts';
import type { Observable } from 'rxjs';
import { ChatStreamService } from './chat-stream.service.js';
import { IdempotentRequests } from '../idempotency/idempotent-requests.service.js';
import { withStreamGuard } from '../idempotency/idempotent-run.js';
import { ResponseCache } from '../response-cache/response-cache.service.js';
import { SSE_DATA_FRAME } from './stream-observable.js';

/** Streamed chat completions: Nest sends each emission as one reply packet (isDisposed at the end). */
@Controller()
export class ChatStreamController {
  constructor(
    private readonly chatStream: ChatStreamService,
    private readonly idempotency: IdempotentRequests,
    private readonly cache: ResponseCache,
  ) {}

  /** Not validated again (ADR 0068): its only caller, the gateway, validated the body at the edge and built the rest. */
  @MessagePattern(ChatStream.subject)
  stream(@TrustedPayload() request: ChatStreamRequest): Observable<string> {
    return withStreamGuard(this.idempotency.streamGuard(request), () =>
      this.cache.stream(request, 'chat', SSE_DATA_FRAME, () => this.chatStream.stream(request)),
    );
  }
}
