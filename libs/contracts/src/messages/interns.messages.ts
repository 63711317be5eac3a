import { Type } from 'class-transformer';
import {
  IsArray,
  IsDefined,
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
import {
  BODY_SHA256_PATTERN,
  DaemonRouteDto,
  HOSTNAME_PATTERN,
  INTERN_DESCRIPTION_MAX_LENGTH,
  INTERN_INSTRUCTIONS_MAX_LENGTH,
  INTERN_LIST_MAX,
  INTERN_MODEL_PATTERN,
  INTERN_NAME_MAX_LENGTH,
} from '../http/intern.dto.js';
import { INTERN_STATUSES, type InternStatus } from '../http/intern.view.js';
import { Principal } from '../principal.js';

/* Gateway -> intern-signing. Intern ids that are not UUIDs never get here (the gateway answers 404). */

class WithPrincipal {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;
}

export class InternsListRequest extends WithPrincipal {
  @IsInt()
  @Min(1)
  @Max(INTERN_LIST_MAX)
  limit!: number;

  @IsOptional()
  @IsArray()
  @IsIn(INTERN_STATUSES, { each: true })
  statuses?: InternStatus[];

  @IsOptional()
  @IsString()
  startingAfter?: string;

  @IsOptional()
  @IsUUID()
  workspaceId?: string;
}

export class InternRef extends WithPrincipal {
  @IsUUID()
  internId!: string;
}

class InternSettings extends WithPrincipal {
  @IsOptional()
  @IsString()
  @MaxLength(INTERN_DESCRIPTION_MAX_LENGTH)
  description?: string | null;

  @IsOptional()
  @IsString()
  @MaxLength(INTERN_INSTRUCTIONS_MAX_LENGTH)
  instructions?: string | null;

  @IsOptional()
  @Matches(INTERN_MODEL_PATTERN)
  model?: string | null;

  @IsOptional()
  @Matches(HOSTNAME_PATTERN)
  hostname?: string | null;
}

export class InternsCreateRequest extends InternSettings {
  @IsString()
  @MinLength(1)
  @MaxLength(INTERN_NAME_MAX_LENGTH)
  name!: string;

  @IsOptional()
  @IsUUID()
  workspaceId?: string;
}

export class InternsUpdateRequest extends InternSettings {
  @IsUUID()
  internId!: string;

  @ValidateIf((request: InternsUpdateRequest) => request.name !== undefined)
  @IsString()
  @MinLength(1)
  @MaxLength(INTERN_NAME_MAX_LENGTH)
  name?: string;
}

export class DaemonSignRequest extends InternRef {
  @Matches(BODY_SHA256_PATTERN)
  bodySha256!: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => DaemonRouteDto)
  route?: DaemonRouteDto;
}

/** Management -> intern-signing: does this intern exist in this workspace (before binding a key to it)? */
export class InternExistsRequest {
  @IsUUID()
  workspaceId!: string;

  @IsUUID()
  internId!: string;
}

export interface InternExistsReply {
  exists: boolean;
}
