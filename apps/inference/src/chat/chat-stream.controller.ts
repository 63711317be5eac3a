import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { ChatStreamRequest, ChatStream } from '@gw/contracts';
import type { Observable } from 'rxjs';
import { ChatStreamService } from './chat-stream.service.js';

/** Streamed chat completions: Nest sends each emission as one reply packet (isDisposed at the end). */
@Controller()
export class ChatStreamController {
  constructor(private readonly chatStream: ChatStreamService) {}

  @MessagePattern(ChatStream.subject)
  stream(@Payload() request: ChatStreamRequest): Observable<string> {
    return this.chatStream.stream(request);
  }
}
