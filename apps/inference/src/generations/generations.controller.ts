import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type GenerationListView,
  type GenerationView,
  GenerationsGet,
  GenerationsGetRequest,
  GenerationsList,
  GenerationsListRequest,
} from '@gw/contracts';
import { GenerationLister } from './generation-list.service.js';
import { GenerationReader } from './generation-reader.service.js';

/** `GET /v1/generation` and `GET /v1/generations`: stored generations, read from this service's own table. */
@Controller()
export class GenerationsController {
  constructor(
    private readonly reader: GenerationReader,
    private readonly lister: GenerationLister,
  ) {}

  @MessagePattern(GenerationsGet.subject)
  get(@Payload() request: GenerationsGetRequest): Promise<GenerationView> {
    return this.reader.get(request.principal, request.id);
  }

  @MessagePattern(GenerationsList.subject)
  list(@Payload() request: GenerationsListRequest): Promise<GenerationListView> {
    return this.lister.list(request.principal, request.query, request.pageSize);
  }
}
