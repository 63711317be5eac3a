import { Type } from 'class-transformer';
import { IsDefined, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';
import { ActivityQueryDto, AnalyticsQueryDto } from '../http/analytics.view.js';
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

/** Gateway -> inference: an analytics query over the principal's workspace's rollups (the body as validated at the edge). */
export class AnalyticsQueryRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @IsDefined()
  @ValidateNested()
  @Type(() => AnalyticsQueryDto)
  query!: AnalyticsQueryDto;
}

/** Gateway -> inference: the principal's workspace's activity by date, model and endpoint. */
export class ActivityRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @IsDefined()
  @ValidateNested()
  @Type(() => ActivityQueryDto)
  query!: ActivityQueryDto;
}
