import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { EmbeddingsCreateRequest, type EmbeddingsView, EmbeddingsCreate } from '@gw/contracts';
import { EmbeddingsService } from './embeddings.service.js';
import { IdempotentRequests } from '../idempotency/idempotent-requests.service.js';
import { ResponseCache } from '../response-cache/response-cache.service.js';

@Controller()
export class EmbeddingsController {
  constructor(
    private readonly embeddings: EmbeddingsService,
    private readonly idempotency: IdempotentRequests,
    private readonly cache: ResponseCache,
  ) {}

  @MessagePattern(EmbeddingsCreate.subject)
  create(@Payload() request: EmbeddingsCreateRequest): Promise<EmbeddingsView | unknown> {
    return this.idempotency.answer(request, () => this.cache.answer(request, 'embeddings', () => this.embeddings.create(request)));
  }
}
