import { Controller } from '@nestjs/common';
import { ServedSubject } from '@gw/messaging';
import { type ChatCompletionView, type ChatCreateRequest, ChatCreate } from '@gw/contracts';
import { ChatService } from './chat.service.js';
import { IdempotentRequests } from '../idempotency/idempotent-requests.service.js';
import { ResponseCache } from '../response-cache/response-cache.service.js';

@Controller()
export class ChatController {
  constructor(
    private readonly chat: ChatService,
    private readonly idempotency: IdempotentRequests,
    private readonly cache: ResponseCache,
  ) {}

  /**
   * Served from its own NATS subscription, not Nest's dispatch (ADR 0079), and not validated again
   * (ADR 0056): its callers, the gateway and batch, validate with ChatCreateRequest's contract.
   */
  @ServedSubject(ChatCreate, { trusted: true })
  create(request: ChatCreateRequest): Promise<ChatCompletionView | unknown> {
    return this.idempotency.answer(request, () => this.cache.answer(request, 'chat', () => this.chat.create(request)));
  }
}
