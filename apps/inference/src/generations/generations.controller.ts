import { Controller } from '@nestjs/common';
import {
  type GenerationListView,
  type GenerationView,
  GenerationsGet,
  GenerationsGetRequest,
  GenerationsList,
  GenerationsListRequest,
} from '@gw/contracts';
import { ServedSubject } from '@gw/messaging';
import { GenerationLister } from './generation-list.service.js';
import { GenerationReader } from './generation-reader.service.js';

/** `GET /v1/generation` and `GET /v1/generations`: stored generations, read from this service's own table. */
@Controller()
export class GenerationsController {
  constructor(
    private readonly reader: GenerationReader,
    private readonly lister: GenerationLister,
  ) {}

  @ServedSubject(GenerationsGet)
  get(request: GenerationsGetRequest): Promise<GenerationView> {
    return this.reader.get(request.principal, request.id);
  }

  @ServedSubject(GenerationsList)
  list(request: GenerationsListRequest): Promise<GenerationListView> {
    return this.lister.list(request.principal, request.query, request.pageSize);
  }
}
