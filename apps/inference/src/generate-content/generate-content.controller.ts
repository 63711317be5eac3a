import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type ServedStream } from '@gw/messaging';
import { ChatCreateRequest, ChatStreamRequest, GenerateContentCount, GenerateContentCreate, GenerateContentStream } from '@gw/contracts';
import { GenerateContentStreamService } from './generate-content-stream.service.js';
import { GenerateContentService } from './generate-content.service.js';
import { IdempotentRequests } from '../idempotency/idempotent-requests.service.js';
import { withStreamGuard } from '../idempotency/idempotent-run.js';

/** Google's generateContent front door: one answer, or one packet per framed SSE frame. */
@Controller()
export class GenerateContentController {
  constructor(
    private readonly generate: GenerateContentService,
    private readonly generateStream: GenerateContentStreamService,
    private readonly idempotency: IdempotentRequests,
  ) {}

  /** Not validated again: its only caller, the gateway, validated the request with ChatCreateRequest's contract. */
  @MessagePattern(GenerateContentCreate.subject)
  create(@Payload() request: ChatCreateRequest): Promise<Record<string, unknown>> {
    return this.idempotency.answer(request, () => this.generate.create(request));
  }

  @MessagePattern(GenerateContentCount.subject)
  countTokens(@Payload() request: ChatCreateRequest): Promise<{ totalTokens: number }> {
    return this.generate.countTokens(request);
  }

  @MessagePattern(GenerateContentStream.subject)
  stream(@Payload() request: ChatStreamRequest): ServedStream {
    return withStreamGuard(this.idempotency.streamGuard(request), () => this.generateStream.stream(request));
  }
}
