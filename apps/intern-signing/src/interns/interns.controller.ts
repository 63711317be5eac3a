import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  InternExistsRequest,
  InternRef,
  InternsCreateRequest,
  InternsListRequest,
  InternsUpdateRequest,
  SUBJECTS,
  type InternExistsReply,
  type InternListView,
  type InternView,
} from '@gw/contracts';
import { InternsService } from './interns.service.js';

@Controller()
export class InternsController {
  constructor(private readonly interns: InternsService) {}

  @MessagePattern(SUBJECTS.internSigning.list)
  list(@Payload() request: InternsListRequest): Promise<InternListView> {
    return this.interns.list(request);
  }

  @MessagePattern(SUBJECTS.internSigning.get)
  get(@Payload() request: InternRef): Promise<InternView> {
    return this.interns.get(request.principal, request.internId);
  }

  @MessagePattern(SUBJECTS.internSigning.create)
  create(@Payload() request: InternsCreateRequest): Promise<InternView> {
    return this.interns.create(request);
  }

  @MessagePattern(SUBJECTS.internSigning.update)
  update(@Payload() request: InternsUpdateRequest): Promise<InternView> {
    return this.interns.update(request);
  }

  @MessagePattern(SUBJECTS.internSigning.delete)
  delete(@Payload() request: InternRef): Promise<{ deleting: true }> {
    return this.interns.delete(request.principal, request.internId);
  }

  @MessagePattern(SUBJECTS.internSigning.exists)
  async exists(@Payload() request: InternExistsRequest): Promise<InternExistsReply> {
    return { exists: await this.interns.exists(request.workspaceId, request.internId) };
  }
}
