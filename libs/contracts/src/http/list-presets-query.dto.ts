import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** Default and largest page of GET /v1/presets and GET /v1/presets/{slug}/versions (as /v1/keys). */
export const PRESETS_PAGE_SIZE = 100;

/** Query of the preset lists: `offset` as /v1/keys, and `limit`, which OpenRouter's SDK always sends. */
export class ListPresetsQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  offset?: number;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(PRESETS_PAGE_SIZE)
  limit?: number;
}
