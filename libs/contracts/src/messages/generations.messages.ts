import { Type } from 'class-transformer';
import { IsDefined, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { ListGenerationsQueryDto } from '../http/generation.view.js';
import { Principal } from '../principal.js';

/** Gateway -> inference: one generation of the principal's workspace, by id. */
export class GenerationsGetRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @IsString()
  @MinLength(1)
  @MaxLength(128)
  id!: string;
}

/** Gateway -> inference: a page of the principal's workspace's generations (the query as validated at the edge). */
export class GenerationsListRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @IsDefined()
  @ValidateNested()
  @Type(() => ListGenerationsQueryDto)
  query!: ListGenerationsQueryDto;
}
