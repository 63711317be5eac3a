import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  InternExistsRequest,
  InternRef,
  InternsCreateRequest,
  InternsListRequest,
  InternsUpdateRequest,
  type InternExistsReply,
  type InternListView,
  type InternView,
  InternExists,
  InternsCreate,
  InternsDelete,
  InternsGet,
  InternsList,
  InternsUpdate,
} from '@gw/contracts';
import { InternsService } from './interns.service.js';

@Controller()
export class InternsController {
  constructor(private readonly interns: InternsService) {}

  @MessagePattern(InternsList.subject)
  list(@Payload() request: InternsListRequest): Promise<InternListView> {
    return this.interns.list(request);
  }

  @MessagePattern(InternsGet.subject)
  get(@Payload() request: InternRef): Promise<InternView> {
    return this.interns.get(request.principal, request.internId);
  }

  @MessagePattern(InternsCreate.subject)
  create(@Payload() request: InternsCreateRequest): Promise<InternView> {
    return this.interns.create(request);
  }

  @MessagePattern(InternsUpdate.subject)
  update(@Payload() request: InternsUpdateRequest): Promise<InternView> {
    return this.interns.update(request);
  }

  @MessagePattern(InternsDelete.subject)
  delete(@Payload() request: InternRef): Promise<{ deleting: true }> {
    return this.interns.delete(request.principal, request.internId);
  }

  @MessagePattern(InternExists.subject)
  async exists(@Payload() request: InternExistsRequest): Promise<InternExistsReply> {
    return { exists: await this.interns.exists(request.workspaceId, request.internId) };
  }
}
