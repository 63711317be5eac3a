import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { EmbeddingsCreateRequest, type EmbeddingsView, EmbeddingsCreate } from '@gw/contracts';
import { EmbeddingsService } from './embeddings.service.js';

@Controller()
export class EmbeddingsController {
  constructor(private readonly embeddings: EmbeddingsService) {}

  @MessagePattern(EmbeddingsCreate.subject)
  create(@Payload() request: EmbeddingsCreateRequest): Promise<EmbeddingsView> {
    return this.embeddings.create(request);
  }
}
