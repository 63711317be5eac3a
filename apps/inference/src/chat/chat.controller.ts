import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { TrustedPayload } from '@gw/messaging';
import { type ChatCompletionView, type ChatCreateRequest, ChatCreate } from '@gw/contracts';
import { ChatService } from './chat.service.js';

@Controller()
export class ChatController {
  constructor(private readonly chat: ChatService) {}

  /** Not validated again (ADR 0056): its callers, the gateway and batch, validate with ChatCreateRequest's contract. */
  @MessagePattern(ChatCreate.subject)
  create(@TrustedPayload() request: ChatCreateRequest): Promise<ChatCompletionView> {
    return this.chat.create(request);
  }
}
