import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, IsUUID, Matches, Max, MaxLength, Min } from 'class-validator';
import { PAGE_SIZE } from './page-query.dto.js';
import { UTC_DATE_TIME } from './key-write.dto.js';

/** One management change (issue 31 item 7): who, when, what, before and after (never a secret). */
export interface AuditLogEntryView {
  id: string;
  created_at: string;
  workspace_id: string | null;
  /** `name`: the operator credential's name, or the catalog files, when no key made the change. */
  actor: { kind: string; user_id: string | null; key_hash: string | null; name: string | null };
  action: string;
  resource_type: string;
  resource_id: string;
  before: unknown;
  after: unknown;
  ip: string | null;
  request_id: string | null;
  /** A relayed row's source, e.g. `catalog/12/catalog_model/openai/gpt-5.4` (catalog version 12); null otherwise. */
  origin: string | null;
}

/** Newest first; `next_cursor` asks for the page after this one, null on the last. */
export interface AuditLogPageView {
  data: AuditLogEntryView[];
  next_cursor: string | null;
}

export const AUDIT_CURSOR_PATTERN = /^[1-9][0-9]{0,18}$/;

/** The filters and page of an audit log read; the workspace is the reader's own (below). */
export class AuditLogFilterDto {
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

export class AuditLogQueryDto extends AuditLogFilterDto {
  /** A workspace the key's user administers; by default the key's own. */
  @IsOptional()
  @IsUUID()
  workspace_id?: string;
}

/** `GET /v1/admin/audit-logs` (the operator): every row by default. */
export class AdminAuditLogQueryDto extends AuditLogFilterDto {
  /** One workspace's rows, or `none`: the rows of no workspace (the catalog's). */
  @IsOptional()
  @Matches(/^(none|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i, {
    message: 'workspace_id must be a workspace id or none',
  })
  workspace_id?: string;
}
