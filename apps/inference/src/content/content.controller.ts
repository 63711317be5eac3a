import { Controller } from '@nestjs/common';
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
import { ServedSubject } from '@gw/messaging';
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
  @ServedSubject(GenerationsContent)
  async read(request: GenerationsGetRequest): Promise<GenerationContentView> {
    await this.reader.get(request.principal, request.id);
    return this.content.read(request.principal.workspaceId, request.id);
  }

  @ServedSubject(ContentLoggingGet)
  setting(request: ContentLoggingGetRequest): Promise<ContentLoggingView> {
    return this.content.view(request.principal);
  }

  @ServedSubject(ContentLoggingSet)
  set(request: ContentLoggingSetRequest): Promise<ContentLoggingView> {
    return this.content.set(request.principal, request.change);
  }
}
