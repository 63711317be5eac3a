import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ChatCreateRequest, SUBJECTS, type ChatCompletionView } from '@gw/contracts';
import { ChatService } from './chat.service.js';

@Controller()
export class ChatController {
  constructor(private readonly chat: ChatService) {}

  @MessagePattern(SUBJECTS.inference.chatCreate)
  create(@Payload() request: ChatCreateRequest): Promise<ChatCompletionView> {
    return this.chat.create(request);
  }
}
