import { Type } from 'class-transformer';
import { IsDefined, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import { ActivityQueryDto, AnalyticsQueryDto } from '../http/analytics.view.js';
import { SetContentLoggingDto } from '../http/content-logging.view.js';
import { GENERATION_EXPORT_PAGE, ListGenerationsQueryDto } from '../http/generation.view.js';
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

  /** An export's page size, beyond the public limit (its rows go straight into the stream). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(GENERATION_EXPORT_PAGE)
  pageSize?: number;
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

/** Gateway -> inference: the principal's workspace's content logging setting. */
export class ContentLoggingGetRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;
}

/** Gateway -> inference: turn the principal's workspace's content logging on or off. */
export class ContentLoggingSetRequest {
  @IsDefined()
  @ValidateNested()
  @Type(() => Principal)
  principal!: Principal;

  @IsDefined()
  @ValidateNested()
  @Type(() => SetContentLoggingDto)
  change!: SetContentLoggingDto;
}
