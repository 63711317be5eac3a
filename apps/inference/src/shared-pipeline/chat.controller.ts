import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
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

  /** Not validated again (trusted in the catalog): its callers, the gateway and batch, validate with ChatCreateRequest's contract. */
  @MessagePattern(ChatCreate.subject)
  create(@Payload() request: ChatCreateRequest): Promise<ChatCompletionView | unknown> {
    return this.idempotency.answer(request, () => this.cache.answer(request, 'chat', () => this.chat.create(request)));
  }
}
