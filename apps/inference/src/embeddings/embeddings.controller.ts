import { Controller } from '@nestjs/common';
import { ServedSubject } from '@gw/messaging';
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

  /** Served from its own NATS subscription (ADR 0079); the payload is validated with EmbeddingsCreateRequest, as Nest's pipe did. */
  @ServedSubject(EmbeddingsCreate)
  create(request: EmbeddingsCreateRequest): Promise<EmbeddingsView | unknown> {
    return this.idempotency.answer(request, () => this.cache.answer(request, 'embeddings', () => this.embeddings.create(request)));
  }
}
