import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ConsoleOperatorSessionCheck,
  ConsoleOperatorSessionEnd,
  ConsoleOperatorSessionOpen,
  ConsoleOperatorSessionRequest,
  ConsoleSessionOpenWithKey,
  ConsoleSessionOpenWithKeyRequest,
  type ConsoleOperatorSessionReply,
  ConsoleSessionEnd,
  ConsoleSessionEndRequest,
  ConsoleSessionOpen,
  ConsoleSessionOpenRequest,
  type ConsoleSessionEndReply,
  type ConsoleSessionView,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
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

  @MessagePattern(ConsoleSessionOpenWithKey.subject)
  openWithKey(@Payload() request: ConsoleSessionOpenWithKeyRequest): Promise<ConsoleSessionView> {
    return this.sessions.openWithKey({
      presentedKeyHash: request.presented_key_hash,
      keyHash: request.key_hash,
      expiresAt: new Date(request.expires_at),
    });
  }

  @MessagePattern(ConsoleOperatorSessionOpen.subject)
  openOperator(@Payload() request: ConsoleOperatorSessionRequest): Promise<ConsoleOperatorSessionReply> {
    if (!request.expires_at) throw new GatewayError(400, 'expires_at is required to open an operator session');
    return this.sessions.openOperator({ keyHash: request.key_hash, operator: request.operator, expiresAt: new Date(request.expires_at) });
  }

  @MessagePattern(ConsoleOperatorSessionCheck.subject)
  checkOperator(@Payload() request: ConsoleOperatorSessionRequest): Promise<ConsoleOperatorSessionReply> {
    return this.sessions.checkOperator({ keyHash: request.key_hash, operator: request.operator });
  }

  @MessagePattern(ConsoleOperatorSessionEnd.subject)
  endOperator(@Payload() request: ConsoleOperatorSessionRequest): Promise<ConsoleOperatorSessionReply> {
    return this.sessions.endOperator({ keyHash: request.key_hash, operator: request.operator, everywhere: request.everywhere === true });
  }
}
