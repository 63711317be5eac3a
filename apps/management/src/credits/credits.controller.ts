import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreditsAddRequest, CreditsGetRequest, SUBJECTS, type CreditsView } from '@gw/contracts';
import { CreditsService } from './credits.service.js';

@Controller()
export class CreditsController {
  constructor(private readonly credits: CreditsService) {}

  @MessagePattern(SUBJECTS.management.creditsGet)
  get(@Payload() request: CreditsGetRequest): Promise<CreditsView> {
    return this.credits.get(request.principal);
  }

  @MessagePattern(SUBJECTS.management.creditsAdd)
  add(@Payload() request: CreditsAddRequest): Promise<CreditsView> {
    return this.credits.add(request.principal, request.amount, request.workspaceId);
  }
}
