import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ConsoleSessionEnd,
  ConsoleSessionEndRequest,
  ConsoleSessionOpen,
  ConsoleSessionOpenRequest,
  type ConsoleSessionEndReply,
  type ConsoleSessionView,
} from '@gw/contracts';
import { ConsoleSessionsService } from './console-sessions.service.js';

@Controller()
export class ConsoleSessionsController {
  constructor(private readonly sessions: ConsoleSessionsService) {}

  @MessagePattern(ConsoleSessionOpen.subject)
  open(@Payload() request: ConsoleSessionOpenRequest): Promise<ConsoleSessionView> {
    return this.sessions.open({
      issuer: request.issuer,
      subject: request.subject,
      keyHash: request.key_hash,
      expiresAt: new Date(request.expires_at),
    });
  }

  @MessagePattern(ConsoleSessionEnd.subject)
  end(@Payload() request: ConsoleSessionEndRequest): Promise<ConsoleSessionEndReply> {
    return this.sessions.end({ keyHash: request.key_hash, userId: request.user_id, everywhere: request.everywhere === true });
  }
}
