import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { DECIMAL_STRING } from '../events/usage-recorded.event.js';
import { LIMIT_RESETS, type ApiKeyView, type LimitReset } from '../http/api-key.view.js';
import { KEY_NAME_MAX_LENGTH, UTC_DATE_TIME } from '../http/key-write.dto.js';
import { KEY_HASH_PATTERN, KeyRateLimits, Principal } from '../principal.js';
import { RESPONSE_CACHE_TTL_MAX_SECONDS } from './response-cache.messages.js';
import { OptionalIntIn } from '../http/validators.js';

/*
 * Gateway -> management: key writes and credits. Amounts travel as decimal strings; a
 * nullable field that is absent stays as it is, null clears it.
 */

export class KeysCreateRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @IsString()
  @MinLength(1)
  @MaxLength(KEY_NAME_MAX_LENGTH)
  name!: string;

  @IsOptional()
  @Matches(DECIMAL_STRING)
  limit?: string | null;

  @IsOptional()
  @IsIn(LIMIT_RESETS)
  limitReset?: LimitReset | null;

  @IsBoolean()
  includeByokInLimit!: boolean;

  @IsOptional()
  @Matches(UTC_DATE_TIME)
  @IsISO8601({ strict: true })
  expiresAt?: string | null;

  @IsOptional()
  @IsUUID()
  workspaceId?: string;

  @IsOptional()
  @IsUUID()
  creatorUserId?: string;

  @IsOptional()
  @IsUUID()
  internId?: string;

  /** Replaces both of the key's limit overrides; null clears them. */
  @IsOptional()
  @ValidateNested()
  @Type(() => KeyRateLimits)
  rateLimits?: KeyRateLimits | null;

  /** The key's default response-cache TTL; null clears it. */
  @OptionalIntIn(1, RESPONSE_CACHE_TTL_MAX_SECONDS)
  responseCacheTtlSeconds?: number | null;
}

/** Intern-signing -> management: delete the keys bound to an intern that is being deleted. */
export class KeysDeleteForInternRequest {
  @IsUUID()
  workspaceId!: string;

  @IsUUID()
  internId!: string;
}

export class KeysUpdateRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @Matches(KEY_HASH_PATTERN)
  hash!: string;

  @ValidateIf((request: KeysUpdateRequest) => request.name !== undefined)
  @IsString()
  @MinLength(1)
  @MaxLength(KEY_NAME_MAX_LENGTH)
  name?: string;

  @ValidateIf((request: KeysUpdateRequest) => request.disabled !== undefined)
  @IsBoolean()
  disabled?: boolean;

  @IsOptional()
  @Matches(DECIMAL_STRING)
  limit?: string | null;

  @IsOptional()
  @IsIn(LIMIT_RESETS)
  limitReset?: LimitReset | null;

  @ValidateIf((request: KeysUpdateRequest) => request.includeByokInLimit !== undefined)
  @IsBoolean()
  includeByokInLimit?: boolean;

  @IsOptional()
  @Matches(UTC_DATE_TIME)
  @IsISO8601({ strict: true })
  expiresAt?: string | null;

  /** Replaces both of the key's limit overrides; null clears them. */
  @IsOptional()
  @ValidateNested()
  @Type(() => KeyRateLimits)
  rateLimits?: KeyRateLimits | null;

  /** The key's default response-cache TTL; null clears it. */
  @OptionalIntIn(1, RESPONSE_CACHE_TTL_MAX_SECONDS)
  responseCacheTtlSeconds?: number | null;
}

export class KeysDeleteRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @Matches(KEY_HASH_PATTERN)
  hash!: string;
}

/** Reply of `management.keys.create`: the secret, shown this once, and the key object. */
export interface KeysCreateReply {
  key: string;
  data: ApiKeyView;
}

export class CreditsGetRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;
}

export class CreditsAddRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  /** Positive decimal string. */
  @Matches(DECIMAL_STRING)
  amount!: string;

  @IsOptional()
  @IsUUID()
  workspaceId?: string;
}
