import { Controller } from '@nestjs/common';
import { type GenerationView, GenerationsGet, GenerationsGetRequest } from '@gw/contracts';
import { ServedSubject } from '@gw/messaging';
import { GenerationReader } from './generation-reader.service.js';

/** `GET /v1/generation`: one stored generation, read from this service's own table. */
@Controller()
export class GenerationsController {
  constructor(private readonly reader: GenerationReader) {}

  @ServedSubject(GenerationsGet)
  get(request: GenerationsGetRequest): Promise<GenerationView> {
    return this.reader.get(request.principal, request.id);
  }
}
