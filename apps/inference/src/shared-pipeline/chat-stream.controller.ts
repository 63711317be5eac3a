import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type ServedStream } from '@gw/messaging';
import { ChatStreamRequest, ChatStream } from '@gw/contracts';
import { ChatStreamService } from './chat-stream.service.js';
import { IdempotentRequests } from '../idempotency/idempotent-requests.service.js';
import { withStreamGuard } from '../idempotency/idempotent-run.js';
import { ResponseCache } from '../response-cache/response-cache.service.js';
import { SSE_DATA_FRAME } from './served-stream.js';

/** Streamed chat completions: each chunk a `data:` frame of the stream. */
@Controller()
export class ChatStreamController {
  constructor(
    private readonly chatStream: ChatStreamService,
    private readonly idempotency: IdempotentRequests,
    private readonly cache: ResponseCache,
  ) {}

  /** Not validated again (trusted in the catalog): its only caller, the gateway, validated the body at the edge and built the rest. */
  @MessagePattern(ChatStream.subject)
  stream(@Payload() request: ChatStreamRequest): ServedStream {
    return withStreamGuard(this.idempotency.streamGuard(request), () =>
      this.cache.stream(request, 'chat', SSE_DATA_FRAME, () => this.chatStream.stream(request)),
    );
  }
}
