import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { EmbeddingsCreateRequest, SUBJECTS, type EmbeddingsView } from '@gw/contracts';
import { EmbeddingsService } from './embeddings.service.js';

@Controller()
export class EmbeddingsController {
  constructor(private readonly embeddings: EmbeddingsService) {}

  @MessagePattern(SUBJECTS.inference.embeddingsCreate)
  create(@Payload() request: EmbeddingsCreateRequest): Promise<EmbeddingsView> {
    return this.embeddings.create(request);
  }
}
