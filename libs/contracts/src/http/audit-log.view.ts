import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { PAGE_SIZE } from './page-query.dto.js';
import { UTC_DATE_TIME } from './key-write.dto.js';

/** One management change (issue 31 item 7): who, when, what, before and after (never a secret). */
export interface AuditLogEntryView {
  id: string;
  created_at: string;
  workspace_id: string | null;
  actor: { kind: string; user_id: string | null; key_hash: string | null };
  action: string;
  resource_type: string;
  resource_id: string;
  before: unknown;
  after: unknown;
  ip: string | null;
  request_id: string | null;
}

/** Newest first; `next_cursor` asks for the page after this one, null on the last. */
export interface AuditLogPageView {
  data: AuditLogEntryView[];
  next_cursor: string | null;
}

export const AUDIT_CURSOR_PATTERN = /^[1-9][0-9]{0,18}$/;

export class AuditLogQueryDto {
  /** A workspace the key's user administers; by default the key's own. */
  @IsOptional()
  @IsUUID()
  workspace_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  action?: string;

  @IsOptional()
  @IsString()
  @MaxLength(100)
  resource_type?: string;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  resource_id?: string;

  @IsOptional()
  @IsUUID()
  actor_user_id?: string;

  @IsOptional()
  @Matches(UTC_DATE_TIME, { message: 'since must be an ISO 8601 date-time in UTC, ending in Z' })
  since?: string;

  @IsOptional()
  @Matches(UTC_DATE_TIME, { message: 'until must be an ISO 8601 date-time in UTC, ending in Z' })
  until?: string;

  @IsOptional()
  @Matches(AUDIT_CURSOR_PATTERN, { message: 'cursor must be a next_cursor this API returned' })
  cursor?: string;

  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(PAGE_SIZE)
  limit?: number;
}
