import { Type } from 'class-transformer';
import { IsBoolean, IsDefined, IsInt, IsOptional, IsUUID, Matches, Min, ValidateNested } from 'class-validator';
import { KEY_HASH_PATTERN, Principal } from '../principal.js';

export class KeysListRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @IsBoolean()
  includeDisabled!: boolean;

  @IsInt()
  @Min(0)
  offset!: number;

  @IsOptional()
  @IsUUID()
  workspaceId?: string;
}

export class KeysGetRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @Matches(KEY_HASH_PATTERN)
  hash!: string;
}
