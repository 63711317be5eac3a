import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsISO8601,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  registerDecorator,
  ValidateIf,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { LIMIT_RESETS, type LimitReset } from './api-key.view.js';
import { MAX_KEY_CONCURRENT_REQUESTS, MAX_KEY_REQUESTS_PER_MINUTE } from '../principal.js';
import { OptionalIntIn } from './validators.js';
import { RESPONSE_CACHE_TTL_MAX_SECONDS } from '../messages/response-cache.messages.js';

/** Largest spend limit or credit amount accepted in one request, in credits. */
export const MAX_CREDIT_AMOUNT = 1_000_000_000;
/** Credits are stored with more precision; requests may carry at most this many decimals. */
export const MAX_AMOUNT_DECIMALS = 12;

/**
 * ISO 8601 date-time in UTC only (`Z`): the issue asks for UTC, so `+02:00` is refused
 * rather than silently converted. Seconds and fractions are optional.
 */
export const UTC_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?Z$/;
const UTC_MESSAGE = 'expires_at must be an ISO 8601 date-time in UTC, ending in Z';

export const KEY_NAME_MAX_LENGTH = 200;

/**
 * Body of POST /v1/keys, in OpenRouter's spelling (`@openrouter/sdk` apiKeys.create).
 * Absent and null mean the same for the nullable fields: no limit, no reset, no expiry.
 */
/**
 * `rate_limit` of POST and PATCH /v1/keys: the key's own request limits in place of the
 * gateway's defaults. The key object echoes it beside spec §2.2's fields, so a key can be copied (rotation).
 */
export class KeyRateLimitDto {
  @OptionalIntIn(1, MAX_KEY_REQUESTS_PER_MINUTE)
  requests_per_minute?: number | null;

  @OptionalIntIn(1, MAX_KEY_CONCURRENT_REQUESTS)
  concurrent_requests?: number | null;
}

/** The spend settings a key is created with and may change later (shared by POST and PATCH). */
class KeySpendSettingsDto {
  @IsOptional()
  @IsCreditAmount()
  @Min(0)
  @Max(MAX_CREDIT_AMOUNT)
  limit?: number | null;

  @IsOptional()
  @IsIn(LIMIT_RESETS)
  limit_reset?: LimitReset | null;

  @ValidateIf((body: KeySpendSettingsDto) => body.include_byok_in_limit !== undefined)
  @IsBoolean()
  include_byok_in_limit?: boolean;

  @IsOptional()
  @Matches(UTC_DATE_TIME, { message: UTC_MESSAGE })
  @IsISO8601({ strict: true }, { message: UTC_MESSAGE })
  expires_at?: string | null;

  /** Replaces both request-limit overrides (a member absent or null: the default); null clears them. */
  @IsOptional()
  @ValidateNested()
  @Type(() => KeyRateLimitDto)
  rate_limit?: KeyRateLimitDto | null;

  /**
   * The key's requests are answered from the response cache unless they opt out, entries living
   * this many seconds; null: only requests that opt in. Echoed in the key object.
   */
  @OptionalIntIn(1, RESPONSE_CACHE_TTL_MAX_SECONDS)
  response_cache_ttl_seconds?: number | null;
}

export class CreateKeyDto extends KeySpendSettingsDto {
  @IsString()
  @MinLength(1)
  @MaxLength(KEY_NAME_MAX_LENGTH)
  name!: string;

  /** The workspace to create the key in; by default the caller's default workspace. */
  @ValidateIf((body: CreateKeyDto) => body.workspace_id !== undefined)
  @IsUUID()
  workspace_id?: string;

  /** The member who owns the key; by default the caller. */
  @ValidateIf((body: CreateKeyDto) => body.creator_user_id !== undefined)
  @IsUUID()
  creator_user_id?: string;

  /**
   * Makes a key of kind `intern`, bound to this intern of the workspace: it sees that intern
   * alone (spec §4.4 rule 2) and its workspace is the only one (rule 3).
   */
  @ValidateIf((body: CreateKeyDto) => body.intern_id !== undefined)
  @IsUUID()
  intern_id?: string;
}

/** Body of PATCH /v1/keys/{hash}: only the fields present change; null clears a nullable one. */
export class UpdateKeyDto extends KeySpendSettingsDto {
  @ValidateIf((body: UpdateKeyDto) => body.name !== undefined)
  @IsString()
  @MinLength(1)
  @MaxLength(KEY_NAME_MAX_LENGTH)
  name?: string;

  @ValidateIf((body: UpdateKeyDto) => body.disabled !== undefined)
  @IsBoolean()
  disabled?: boolean;
}

/** Body of POST /v1/credits (a management operation; docs/adr: credits). */
export class AddCreditsDto {
  @IsCreditAmount()
  @Min(Number.MIN_VALUE, { message: 'amount must be greater than 0' })
  @Max(MAX_CREDIT_AMOUNT)
  amount!: number;

  @ValidateIf((body: AddCreditsDto) => body.workspace_id !== undefined)
  @IsUUID()
  workspace_id?: string;
}

/**
 * A finite JSON number with at most MAX_AMOUNT_DECIMALS decimals. (class-validator's
 * `IsNumber({ maxDecimalPlaces })` throws on numbers JavaScript prints with an exponent, 1e-9.)
 */
function IsCreditAmount(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isCreditAmount',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be a number with at most ${MAX_AMOUNT_DECIMALS} decimals`, ...options },
      validator: {
        validate: (value: unknown) => typeof value === 'number' && Number.isFinite(value) && Number(amountToDecimalString(value)) === value,
      },
    });
}

/** GET /v1/credits, OpenRouter's shape: the balance is total_credits - total_usage. */
export interface CreditsView {
  total_credits: number;
  total_usage: number;
}

/**
 * A JSON number with at most MAX_AMOUNT_DECIMALS decimals as an exact decimal string, so the
 * amount travels to the database without float arithmetic (`0.1` stays `0.1`).
 */
export function amountToDecimalString(amount: number): string {
  const fixed = amount.toFixed(MAX_AMOUNT_DECIMALS);
  return fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
}
