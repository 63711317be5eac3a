import { Type } from 'class-transformer';
import { IsInt, IsOptional, Max, Min } from 'class-validator';

/** Default and largest page of every list (keys, presets, versions, BYOK); the spec leaves it open. */
export const PAGE_SIZE = 100;

/** `offset`: how many items to skip (spec §4.2). */
export class OffsetQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(0)
  offset?: number;
}

/** `offset` and `limit` (1..100), which OpenRouter's SDK sends on its newer lists. */
export class PageQueryDto extends OffsetQueryDto {
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(PAGE_SIZE)
  limit?: number;
}
