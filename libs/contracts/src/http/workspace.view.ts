import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsNumber,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';
import { PageQueryDto } from './page-query.dto.js';

/*
 * Workspaces, their members and budgets, and the organization's members, as @openrouter/sdk
 * (1.3) reads and writes them (`workspaces.*`, `organization.listMembers`; issue 31 item 5).
 */

export const WORKSPACE_ROLES = ['owner', 'admin', 'member'] as const;
export type WorkspaceRoleName = (typeof WORKSPACE_ROLES)[number];
export const BUDGET_INTERVALS = ['daily', 'weekly', 'monthly', 'lifetime'] as const;
export type BudgetIntervalName = (typeof BUDGET_INTERVALS)[number];
/** Most user ids, key hashes or member ids one bulk call takes. */
export const MAX_BULK_ITEMS = 100;
export const WORKSPACE_SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const MAX_BUDGET_USD = 1_000_000_000;

export interface WorkspaceView {
  id: string;
  name: string;
  slug: string;
  description: string | null;
  created_at: string;
  updated_at: string | null;
  created_by: string | null;
  default_guardrail_id: string;
  default_text_model: string | null;
  default_image_model: string | null;
  default_provider_sort: string | null;
  disabled_server_tools: string[] | null;
  include_byok_in_budgets: boolean;
  io_logging_api_key_ids: number[] | null;
  io_logging_sampling_rate: number;
  is_data_discount_logging_enabled: boolean;
  is_observability_broadcast_enabled: boolean;
  is_observability_io_logging_enabled: boolean;
}

export interface WorkspaceMemberView {
  id: string;
  workspace_id: string;
  user_id: string;
  role: WorkspaceRoleName;
  created_at: string;
  /** This gateway's additions to the SDK's shape: who the member is (absent in audit records). */
  name?: string | null;
  email?: string;
}

/** A budget; `user_id` is set on a member's budget (this gateway's addition to the SDK's shape). */
export interface WorkspaceBudgetView {
  id: string;
  workspace_id: string;
  user_id?: string;
  limit_usd: number;
  /** Null for a lifetime budget. */
  reset_interval: 'daily' | 'weekly' | 'monthly' | null;
  /** Spend counted in the current period (this gateway's addition). */
  usage_usd: number;
  created_at: string;
  updated_at: string;
}

export interface OrganizationMemberView {
  id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  role: 'org:admin' | 'org:member';
}

export interface TotalPage<T> {
  data: T[];
  total_count: number;
}

export interface BudgetsEnvelope<T> {
  data: T;
  include_byok_in_budgets: boolean;
}

/** Settings a workspace is created with and may change (shared by POST and PATCH). */
class WorkspaceSettingsDto {
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string | null;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  default_text_model?: string | null;

  @IsOptional()
  @IsString()
  @MaxLength(200)
  default_image_model?: string | null;

  @IsOptional()
  @IsIn(['price', 'throughput', 'latency'])
  default_provider_sort?: string | null;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(32)
  @IsString({ each: true })
  @MaxLength(100, { each: true })
  disabled_server_tools?: string[] | null;

  @ValidateIf((body: WorkspaceSettingsDto) => body.io_logging_api_key_ids != null)
  @IsArray()
  @ArrayMaxSize(0, { message: 'io_logging_api_key_ids is not supported: content logging is per workspace' })
  io_logging_api_key_ids?: number[] | null;

  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  io_logging_sampling_rate?: number;

  @IsOptional()
  @IsBoolean()
  is_data_discount_logging_enabled?: boolean;

  @IsOptional()
  @IsBoolean()
  is_observability_broadcast_enabled?: boolean;

  @IsOptional()
  @IsBoolean()
  is_observability_io_logging_enabled?: boolean;
}

export class CreateWorkspaceDto extends WorkspaceSettingsDto {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @Matches(WORKSPACE_SLUG_PATTERN, { message: 'slug must be 1 to 64 lower-case letters, digits and -, starting with a letter or digit' })
  slug!: string;
}

export class UpdateWorkspaceDto extends WorkspaceSettingsDto {
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @IsOptional()
  @Matches(WORKSPACE_SLUG_PATTERN, { message: 'slug must be 1 to 64 lower-case letters, digits and -, starting with a letter or digit' })
  slug?: string;
}

export class BulkMembersDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BULK_ITEMS)
  @IsUUID('all', { each: true })
  user_ids!: string[];

  /** The role the added members get (default `member`): this gateway's addition. */
  @IsOptional()
  @IsIn(['admin', 'member'])
  role?: 'admin' | 'member';
}

export class UpsertBudgetDto {
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(MAX_BUDGET_USD)
  limit_usd!: number;

  @IsOptional()
  @IsBoolean()
  include_byok_in_budgets?: boolean;
}

/** `offset` and `limit` as the SDK sends them on its lists (default 50, as it does). */
export class TotalPageQueryDto extends PageQueryDto {}

export class DeleteWorkspaceQueryDto {
  @IsOptional()
  @IsIn(['true', 'false'])
  confirm_default_workspace_deletion?: 'true' | 'false';
}
