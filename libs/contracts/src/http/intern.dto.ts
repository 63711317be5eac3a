import { Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { INTERN_STATUSES, type InternStatus } from './intern.view.js';

export const INTERN_LIST_MAX = 500;
export const INTERN_LIST_DEFAULT = 50;
export const INTERN_NAME_MAX_LENGTH = 100;
export const INTERN_DESCRIPTION_MAX_LENGTH = 2_000;
export const INTERN_INSTRUCTIONS_MAX_LENGTH = 100_000;
/** `author/slug` with an optional `:variant` (UpdateInternRequest.model). */
export const INTERN_MODEL_PATTERN = /^[a-z0-9][a-z0-9._-]*\/[a-zA-Z0-9][a-zA-Z0-9._-]*(:[a-zA-Z0-9._-]+)?$/;
/** A DNS hostname (RFC 1123 labels), lower case, no port. */
export const HOSTNAME_PATTERN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;
export const BODY_SHA256_PATTERN = /^[0-9a-f]{64}$/;

/** Fields of an intern the caller may set; null clears a nullable one. */
class InternSettingsDto {
  @IsOptional()
  @IsString()
  @MaxLength(INTERN_DESCRIPTION_MAX_LENGTH)
  description?: string | null;

  @IsOptional()
  @IsString()
  @MaxLength(INTERN_INSTRUCTIONS_MAX_LENGTH)
  instructions?: string | null;

  @IsOptional()
  @Matches(INTERN_MODEL_PATTERN, { message: 'model must be an `author/slug` model id, optionally with a `:variant`' })
  model?: string | null;

  /** Where the intern's daemon is reachable; set by its operator (nothing is provisioned here). */
  @IsOptional()
  @Matches(HOSTNAME_PATTERN, { message: 'hostname must be a lower-case DNS hostname without a port' })
  hostname?: string | null;
}

/** POST /v1/interns (CreateInternRequest). */
export class CreateInternDto extends InternSettingsDto {
  @IsString()
  @MinLength(1)
  @MaxLength(INTERN_NAME_MAX_LENGTH)
  name!: string;

  /** Must be the key's own workspace when given (spec §4.4 rule 3). */
  @ValidateIf((body: CreateInternDto) => body.workspace_id !== undefined)
  @IsUUID()
  workspace_id?: string;

  /** Provisioning is not offered here: only `false` is accepted. */
  @ValidateIf((body: CreateInternDto) => body.provision !== undefined)
  @IsBoolean()
  provision?: boolean;

  /** Vaults are not offered here: refused when given. */
  @IsOptional()
  @IsString()
  vault_id?: string;
}

/** PATCH /v1/interns/{internId} (UpdateInternRequest + hostname). */
export class UpdateInternDto extends InternSettingsDto {
  @ValidateIf((body: UpdateInternDto) => body.name !== undefined)
  @IsString()
  @MinLength(1)
  @MaxLength(INTERN_NAME_MAX_LENGTH)
  name?: string;
}

/** DELETE /v1/interns/{internId} (DeleteInternRequest): optional body. */
export class DeleteInternDto {
  @ValidateIf((body: DeleteInternDto) => body.acknowledge_workspace_loss !== undefined)
  @IsBoolean()
  acknowledge_workspace_loss?: boolean;
}

/** GET /v1/interns query (ListInternsRequest): `status` is comma-separated (form, explode false). */
export class ListInternsQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(INTERN_LIST_MAX)
  limit?: number;

  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' ? value.split(',').filter(Boolean) : value))
  @IsIn(INTERN_STATUSES, { each: true })
  status?: InternStatus[];

  @IsOptional()
  @IsString()
  @MinLength(1)
  starting_after?: string;

  @IsOptional()
  @IsUUID()
  workspace_id?: string;
}

/** Beyond the spec: binds the signature to the daemon request's method and path (v2). */
export class DaemonRouteDto {
  @Matches(/^[A-Z]{1,16}$/, { message: 'route.method must be an upper-case HTTP method' })
  method!: string;

  @Matches(/^\/[\x21-\x7e]{0,2047}$/, { message: 'route.path must be the request target, starting with /, printable ASCII without spaces' })
  path!: string;
}

/** POST /v1/interns/{internId}/daemon/sign (spec §4.4). */
export class DaemonSignDto {
  @Matches(BODY_SHA256_PATTERN, { message: 'bodySha256 must be 64 lower-case hex characters' })
  bodySha256!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => DaemonRouteDto)
  route?: DaemonRouteDto;
}
