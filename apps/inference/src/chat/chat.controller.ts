import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { TrustedPayload } from '@gw/messaging';
import { SUBJECTS, type ChatCompletionView, type ChatCreateRequest } from '@gw/contracts';
import { ChatService } from './chat.service.js';

@Controller()
export class ChatController {
  constructor(private readonly chat: ChatService) {}

  /** Not validated again (ADR 0056): its callers, the gateway and batch, validate with ChatCreateRequest's contract. */
  @MessagePattern(SUBJECTS.inference.chatCreate)
  create(@TrustedPayload() request: ChatCreateRequest): Promise<ChatCompletionView> {
    return this.chat.create(request);
  }
}
