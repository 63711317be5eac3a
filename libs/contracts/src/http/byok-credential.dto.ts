import { PAGE_SIZE, PageQueryDto } from './page-query.dto.js';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { KEY_HASH_PATTERN } from '../principal.js';

/*
 * Bodies and query of the BYOK endpoints (spec §2.4, §4.7; names follow OpenRouter's public
 * `POST /byok`, `PATCH /byok/{id}`, `GET /byok`). Messages never quote a rejected value:
 * the body carries a provider secret.
 */

/** Provider slug of the model catalog: lower-case letters, digits and `-`, 1..64. */
export const PROVIDER_SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
/** A model id as the catalog spells it (`sim/gpt-4o-mini`, `openai/gpt-4o:free`): no whitespace. */
export const MODEL_ID_PATTERN = /^[^\s]{1,256}$/;
/** A data-residency region a credential's account is declared to live in (`us`, `eu`, `eu-west-1`). */
export const REGION_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;

export const BYOK_LIMITS = { keyLength: 16_384, nameLength: 128, listItems: 100, sortOrderMax: 1_000_000 } as const;
/** Page size of GET /v1/byok when `limit` is not given, and its upper bound. */
export const BYOK_PAGE_SIZE = PAGE_SIZE;

/** Present means a value: `null` is refused (the field has no "unset" state). */
const NotNullWhenPresent = () => ValidateIf((_object: unknown, value: unknown) => value !== undefined);

/** Fields both create and update accept, with the same rules. */
class ByokCredentialFieldsDto {
  @IsOptional()
  @IsString()
  @MaxLength(BYOK_LIMITS.nameLength)
  name?: string | null;

  @NotNullWhenPresent()
  @IsBoolean()
  disabled?: boolean;

  @NotNullWhenPresent()
  @IsBoolean()
  is_fallback?: boolean;

  @NotNullWhenPresent()
  @IsBoolean()
  is_byok_only?: boolean;

  @NotNullWhenPresent()
  @IsBoolean()
  is_required?: boolean;

  @NotNullWhenPresent()
  @IsInt()
  @Min(0)
  @Max(BYOK_LIMITS.sortOrderMax)
  sort_order?: number;

  /** `null`: any key of the workspace may use the credential. */
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(BYOK_LIMITS.listItems)
  @ArrayUnique()
  @Matches(KEY_HASH_PATTERN, { each: true, message: 'allowed_api_key_hashes must hold key hashes of 64 lower-case hex characters' })
  allowed_api_key_hashes?: string[] | null;

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(BYOK_LIMITS.listItems)
  @ArrayUnique()
  @Matches(MODEL_ID_PATTERN, { each: true, message: 'allowed_models must hold model ids of 1-256 characters without whitespace' })
  allowed_models?: string[] | null;

  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(BYOK_LIMITS.listItems)
  @ArrayUnique()
  @IsUUID('all', { each: true, message: 'allowed_user_ids must hold user ids (UUIDs)' })
  allowed_user_ids?: string[] | null;

  @IsOptional()
  @Matches(REGION_PATTERN)
  declared_region?: string | null;

  @IsOptional()
  @IsBoolean()
  declared_zdr?: boolean | null;
}

/** The secret: any non-blank text up to 16 KiB (some providers take a JSON service account). */
const SecretKey = () => (target: object, property: string) => {
  IsString({ message: `${property} must be a string` })(target, property);
  MaxLength(BYOK_LIMITS.keyLength, { message: `${property} must be at most ${BYOK_LIMITS.keyLength} characters` })(target, property);
  Matches(/\S/, { message: `${property} must not be empty` })(target, property);
};

/** Body of POST /v1/byok. */
export class CreateByokCredentialDto extends ByokCredentialFieldsDto {
  @Matches(PROVIDER_SLUG_PATTERN, { message: 'provider must be a provider slug: lower-case letters, digits and "-", at most 64' })
  provider!: string;

  @SecretKey()
  key!: string;

  /** The workspace to create it in; the caller's default workspace when absent. */
  @IsOptional()
  @IsUUID()
  workspace_id?: string;
}

/** Body of PATCH /v1/byok/{id}: every field optional; a new `key` replaces the secret. */
export class UpdateByokCredentialDto extends ByokCredentialFieldsDto {
  @NotNullWhenPresent()
  @SecretKey()
  key?: string;
}

/** Query of GET /v1/byok. */
export class ListByokQueryDto extends PageQueryDto {
  @IsOptional()
  @Matches(PROVIDER_SLUG_PATTERN, { message: 'provider must be a provider slug' })
  provider?: string;

  @IsOptional()
  @IsUUID()
  workspace_id?: string;
}
