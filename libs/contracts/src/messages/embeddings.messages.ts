import { Type } from 'class-transformer';
import { IsDefined, IsObject, IsOptional, ValidateNested } from 'class-validator';
import { Principal } from '../principal.js';
import { IdempotencyRef } from './idempotency.messages.js';
import { ResponseCacheControls } from './response-cache.messages.js';

/**
 * Gateway -> inference on SUBJECTS.inference.embeddingsCreate. `body` is the client's
 * embeddings body, validated by the gateway (EmbeddingsRequestDto) and passed on whole.
 */
export class EmbeddingsCreateRequest<Body extends object = Record<string, unknown>> {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @IsObject()
  body!: Body;

  /** The client's `Idempotency-Key`. */
  @IsOptional()
  @ValidateNested()
  @Type(() => IdempotencyRef)
  idempotency?: IdempotencyRef;
  /** The caller's response-cache controls, when it gave any. */
  @IsOptional()
  @ValidateNested()
  @Type(() => ResponseCacheControls)
  cache?: ResponseCacheControls;
}
