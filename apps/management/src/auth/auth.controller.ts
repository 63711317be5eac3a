import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AuthResolveRequest, type AuthResolveReply, AuthResolve } from '@gw/contracts';
import { AuthService } from './auth.service.js';

@Controller()
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @MessagePattern(AuthResolve.subject)
  resolve(@Payload() request: AuthResolveRequest): Promise<AuthResolveReply> {
    return this.auth.resolve(request.keyHash);
  }
}
