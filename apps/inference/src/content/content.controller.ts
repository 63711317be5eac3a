import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type ContentLoggingView,
  type GenerationContentView,
  ContentLoggingGet,
  ContentLoggingGetRequest,
  ContentLoggingSet,
  ContentLoggingSetRequest,
  GenerationsContent,
  GenerationsGetRequest,
} from '@gw/contracts';
import { GenerationReader } from '../generations/generation-reader.service.js';
import { ContentLog } from './content-log.service.js';

/** `GET /v1/generation/content` and the content logging setting (`GET` / `PUT /v1/content-logging`). */
@Controller()
export class ContentController {
  constructor(
    private readonly content: ContentLog,
    private readonly reader: GenerationReader,
  ) {}

  /** The generation is read first: an id the key cannot see is the same 404 `not_found` as on GET /v1/generation. */
  @MessagePattern(GenerationsContent.subject)
  async read(@Payload() request: GenerationsGetRequest): Promise<GenerationContentView> {
    await this.reader.get(request.principal, request.id);
    return this.content.read(request.principal.workspaceId, request.id);
  }

  @MessagePattern(ContentLoggingGet.subject)
  setting(@Payload() request: ContentLoggingGetRequest): Promise<ContentLoggingView> {
    return this.content.view(request.principal);
  }

  @MessagePattern(ContentLoggingSet.subject)
  set(@Payload() request: ContentLoggingSetRequest): Promise<ContentLoggingView> {
    return this.content.set(request.principal, request.change);
  }
}
