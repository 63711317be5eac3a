import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { ClientHeaders } from '../events/client-headers.js';
import { SESSION_ID_MAX_LENGTH } from '../http/generation-params.dto.js';
import { Principal } from '../principal.js';
import { IdempotencyRef } from './idempotency.messages.js';
import { ResponseCacheControls } from './response-cache.messages.js';

/**
 * Gateway -> inference. `body` is the client's body (`Body`: the front door's DTO), already
 * validated by the gateway and passed on whole so fields the gateway does not model still
 * reach providers that support them; the receiver reads it as a record.
 */
export class ChatCreateRequest<Body extends object = Record<string, unknown>> {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @IsObject()
  body!: Body;

  @IsOptional()
  @IsString()
  @MaxLength(SESSION_ID_MAX_LENGTH)
  sessionId?: string;

  /** The caller opted in to routing metadata (`service_metadata`, spec §2.6 / §4.5). */
  @IsOptional()
  @IsBoolean()
  serviceMetadata?: boolean;

  /**
   * The answer field of that metadata when not `service_metadata`: `X-OpenRouter-Metadata`
   * asked, and `@openrouter/sdk` reads `openrouter_metadata`.
   */
  @IsOptional()
  @IsIn(['openrouter_metadata'])
  metadataField?: 'openrouter_metadata';

  /**
   * Minted by the gateway so it can cancel the request when its client goes away
   * (`events.inference.stream.cancelled` with this id as `streamId`).
   */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  requestId?: string;

  /** `/v1/messages`: the caller's `anthropic-beta` values, sent on to Anthropic-format endpoints. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  @MaxLength(128, { each: true })
  anthropicBeta?: string[];

  /** The client's `Idempotency-Key`: a retry gets the first outcome and is not billed again. */
  @IsOptional()
  @ValidateNested()
  @Type(() => IdempotencyRef)
  idempotency?: IdempotencyRef;
  /** The caller's response-cache controls (headers and body `cache` field), when it gave any. */
  @IsOptional()
  @ValidateNested()
  @Type(() => ResponseCacheControls)
  cache?: ResponseCacheControls;

  /**
   * The response-cache key the gateway looked up for this whole answer and found nothing under:
   * inference takes the miss as read (no second hash and Redis read) and stores under this key.
   */
  @IsOptional()
  @IsString()
  @MaxLength(64)
  cacheMissKey?: string;

  /** The client's identifying headers, recorded on its generations (`GET /v1/generation`). */
  @IsOptional()
  @ValidateNested()
  @Type(() => ClientHeaders)
  client?: ClientHeaders;
}

export class ModelsListRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;
}
