import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreditsAddRequest, CreditsGetRequest, type CreditsView, CreditsAdd, CreditsGet } from '@gw/contracts';
import { CreditsService } from './credits.service.js';

@Controller()
export class CreditsController {
  constructor(private readonly credits: CreditsService) {}

  @MessagePattern(CreditsGet.subject)
  get(@Payload() request: CreditsGetRequest): Promise<CreditsView> {
    return this.credits.get(request.principal);
  }

  @MessagePattern(CreditsAdd.subject)
  add(@Payload() request: CreditsAddRequest): Promise<CreditsView> {
    return this.credits.add(request.principal, request.amount, request.workspaceId);
  }
}
