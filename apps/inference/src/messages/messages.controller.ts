import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type ServedStream } from '@gw/messaging';
import {
  ChatCreateRequest,
  ChatStreamRequest,
  type MessageTokenCountView,
  type MessageView,
  MessagesCountTokens,
  MessagesCreate,
  MessagesStream,
} from '@gw/contracts';
import { MessagesCountTokensService } from './messages-count-tokens.service.js';
import { MessagesStreamService } from './messages-stream.service.js';
import { MessagesService } from './messages.service.js';
import { IdempotentRequests } from '../idempotency/idempotent-requests.service.js';
import { withStreamGuard } from '../idempotency/idempotent-run.js';
import { ResponseCache } from '../response-cache/response-cache.service.js';
import { ALREADY_FRAMED } from '../shared-pipeline/served-stream.js';

/** Anthropic's Messages API front door: one answer, or one packet per framed SSE event. */
@Controller()
export class MessagesController {
  constructor(
    private readonly messages: MessagesService,
    private readonly messagesStream: MessagesStreamService,
    private readonly counts: MessagesCountTokensService,
    private readonly idempotency: IdempotentRequests,
    private readonly cache: ResponseCache,
  ) {}

  /** Not validated again (trusted in the catalog): its callers, the gateway and batch, validate with ChatCreateRequest's contract. */
  @MessagePattern(MessagesCreate.subject)
  create(@Payload() request: ChatCreateRequest): Promise<MessageView | unknown> {
    return this.idempotency.answer(request, () => this.cache.answer(request, 'messages', () => this.messages.create(request)));
  }

  /** Validated at the gateway's edge like a message, as the create subject is. */
  @MessagePattern(MessagesCountTokens.subject)
  countTokens(@Payload() request: ChatCreateRequest): Promise<MessageTokenCountView> {
    return this.counts.count(request);
  }

  /** Not validated again (trusted in the catalog): its only caller, the gateway, validated the body at the edge and built the rest. */
  @MessagePattern(MessagesStream.subject)
  stream(@Payload() request: ChatStreamRequest): ServedStream {
    return withStreamGuard(this.idempotency.streamGuard(request), () =>
      this.cache.stream(request, 'messages', ALREADY_FRAMED, () => this.messagesStream.stream(request)),
    );
  }
}
