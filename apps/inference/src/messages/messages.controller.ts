import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { ServedSubject, TrustedPayload } from '@gw/messaging';
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
import type { Observable } from 'rxjs';
import { MessagesStreamService } from './messages-stream.service.js';
import { MessagesService } from './messages.service.js';
import { IdempotentRequests } from '../idempotency/idempotent-requests.service.js';
import { withStreamGuard } from '../idempotency/idempotent-run.js';
import { ResponseCache } from '../response-cache/response-cache.service.js';
import { ALREADY_FRAMED } from '../chat/stream-observable.js';

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

  /**
   * Served from its own NATS subscription, not Nest's dispatch (ADR 0079), and not validated again
   * (ADR 0056): its callers, the gateway and batch, validate with ChatCreateRequest's contract.
   */
  @ServedSubject(MessagesCreate, { trusted: true })
  create(request: ChatCreateRequest): Promise<MessageView | unknown> {
    return this.idempotency.answer(request, () => this.cache.answer(request, 'messages', () => this.messages.create(request)));
  }

  /** Validated at the gateway's edge like a message, as the create subject is. */
  @ServedSubject(MessagesCountTokens, { trusted: true })
  countTokens(request: ChatCreateRequest): Promise<MessageTokenCountView> {
    return this.counts.count(request);
  }

  /** Not validated again (ADR 0068): its only caller, the gateway, validated the body at the edge and built the rest. */
  @MessagePattern(MessagesStream.subject)
  stream(@TrustedPayload() request: ChatStreamRequest): Observable<string> {
    return withStreamGuard(this.idempotency.streamGuard(request), () =>
      this.cache.stream(request, 'messages', ALREADY_FRAMED, () => this.messagesStream.stream(request)),
    );
  }
}
