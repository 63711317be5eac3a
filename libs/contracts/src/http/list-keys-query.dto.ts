import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsUUID } from 'class-validator';
import { OffsetQueryDto, PAGE_SIZE } from './page-query.dto.js';

/** Turns the query-string spellings of a boolean into one; anything else stays invalid. */
function parseBooleanQuery({ value }: { value: unknown }): unknown {
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  return value;
}

/** Query of GET /v1/keys (spec §4.2). Names follow the public OpenRouter spelling. */
export class ListKeysQueryDto extends OffsetQueryDto {
  @IsOptional()
  @Transform(parseBooleanQuery)
  @IsBoolean()
  include_disabled?: boolean;

  @IsOptional()
  @IsUUID()
  workspace_id?: string;
}

/** Page size of GET /v1/keys; the spec leaves it open. */
export const KEYS_PAGE_SIZE = PAGE_SIZE;
