import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsOptional, IsUUID, Matches, Max, Min, ValidateNested } from 'class-validator';
import { BYOK_PAGE_SIZE, CreateByokCredentialDto, PROVIDER_SLUG_PATTERN, UpdateByokCredentialDto } from '../http/byok-credential.dto.js';
import { Principal } from '../principal.js';

/*
 * Gateway -> management, BYOK CRUD. The create and update messages carry the provider secret
 * (it has to reach the one service that encrypts it): NATS must run with TLS in production,
 * and nothing may log these payloads (see the pino redaction in @gw/config).
 */

abstract class PrincipalMessage {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;
}

export class ByokCreateRequest extends PrincipalMessage {
  @ValidateNested()
  @Type(() => CreateByokCredentialDto)
  credential!: CreateByokCredentialDto;
}

export class ByokListRequest extends PrincipalMessage {
  @IsOptional()
  @Matches(PROVIDER_SLUG_PATTERN)
  provider?: string;

  @IsInt()
  @Min(0)
  offset!: number;

  @IsInt()
  @Min(1)
  @Max(BYOK_PAGE_SIZE)
  limit!: number;

  @IsOptional()
  @IsUUID()
  workspaceId?: string;
}

export class ByokGetRequest extends PrincipalMessage {
  @IsUUID()
  id!: string;
}

export class ByokDeleteRequest extends ByokGetRequest {}

export class ByokUpdateRequest extends ByokGetRequest {
  @ValidateNested()
  @Type(() => UpdateByokCredentialDto)
  changes!: UpdateByokCredentialDto;
}

/** Gateway -> inference: one cheap call (the provider's model list) through a workspace's credential. */
export class ByokTestRequest extends PrincipalMessage {
  @IsUUID()
  id!: string;
}
