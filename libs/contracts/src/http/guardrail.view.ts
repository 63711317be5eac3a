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
} from 'class-validator';
import { LIMIT_RESETS, type LimitReset } from './api-key.view.js';
import { MAX_BUDGET_USD, MAX_BULK_ITEMS, TotalPageQueryDto } from './workspace.view.js';
import { KEY_HASH_PATTERN } from '../principal.js';

/*
 * Guardrails as @openrouter/sdk (1.3) reads and writes them (`guardrails.*`; issue 31 item 6).
 * Of its policy fields this gateway enforces models, providers and the spend limit; the others
 * (content filters, ZDR, training, data regions) are refused when set rather than ignored.
 */

export const MAX_GUARDRAIL_LIST = 200;

export interface GuardrailView {
  id: string;
  workspace_id: string | null;
  name: string;
  description: string | null;
  allowed_models: string[] | null;
  ignored_models: string[] | null;
  allowed_providers: string[] | null;
  ignored_providers: string[] | null;
  limit_usd: number | null;
  reset_interval: LimitReset | null;
  include_byok_in_budgets: boolean;
  created_at: string;
  updated_at: string | null;
}

export interface GuardrailKeyAssignmentView {
  id: string;
  guardrail_id: string;
  key_hash: string;
  key_name: string;
  key_label: string;
  assigned_by: string | null;
  created_at: string;
}

export interface GuardrailMemberAssignmentView {
  id: string;
  guardrail_id: string;
  user_id: string;
  /** The workspace the member belongs to: this gateway's organization is the workspace. */
  organization_id: string;
  assigned_by: string | null;
  created_at: string;
}

const listOf = () => [IsOptional(), IsArray(), ArrayMaxSize(MAX_GUARDRAIL_LIST), IsString({ each: true }), MaxLength(200, { each: true })];
const apply =
  (decorators: PropertyDecorator[]): PropertyDecorator =>
  (target, key) =>
    decorators.forEach((d) => d(target, key));

/** Fields the SDK has that this gateway does not enforce: accepted only when null or absent. */
const NOT_ENFORCED = { message: '$property is not supported by this gateway (leave it null)' };
const Unsupported = (): PropertyDecorator => apply([IsOptional(), IsIn([null], NOT_ENFORCED)]);

class GuardrailPolicyDto {
  @IsOptional()
  @IsString()
  @MaxLength(1000)
  description?: string | null;

  @apply(listOf())
  allowed_models?: string[] | null;

  @apply(listOf())
  ignored_models?: string[] | null;

  @apply(listOf())
  allowed_providers?: string[] | null;

  @apply(listOf())
  ignored_providers?: string[] | null;

  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false })
  @Min(0)
  @Max(MAX_BUDGET_USD)
  limit_usd?: number | null;

  @IsOptional()
  @IsIn(LIMIT_RESETS)
  reset_interval?: LimitReset | null;

  @IsOptional()
  @IsBoolean()
  include_byok_in_budgets?: boolean;

  @Unsupported() allowed_data_regions?: null;
  @Unsupported() content_filter_builtins?: null;
  @Unsupported() content_filters?: null;
  @Unsupported() enable_free_model_publication?: null;
  @Unsupported() enable_free_model_training?: null;
  @Unsupported() enable_paid_model_training?: null;
  @Unsupported() enforce_zdr?: null;
  @Unsupported() enforce_zdr_anthropic?: null;
  @Unsupported() enforce_zdr_google?: null;
  @Unsupported() enforce_zdr_openai?: null;
  @Unsupported() enforce_zdr_other?: null;
  @Unsupported() enforce_zdr_xai?: null;
}

export class CreateGuardrailDto extends GuardrailPolicyDto {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @IsOptional()
  @IsUUID()
  workspace_id?: string;
}

export class UpdateGuardrailDto extends GuardrailPolicyDto {
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;
}

export class GuardrailKeysDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BULK_ITEMS)
  @Matches(KEY_HASH_PATTERN, { each: true, message: 'key_hashes must be key hashes (64 lower-case hex characters)' })
  key_hashes!: string[];
}

export class GuardrailMembersDto {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_BULK_ITEMS)
  @IsUUID('all', { each: true })
  member_user_ids!: string[];
}

export class ListGuardrailsQueryDto extends TotalPageQueryDto {
  @IsOptional()
  @IsUUID()
  workspace_id?: string;
}
