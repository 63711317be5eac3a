import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsIn, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import {
  IsArrayOfObjectsWith,
  IsPluginList,
  IsRequestMetadata,
  IsStopConditions,
  IsToolChoice,
  OptionalIntIn,
  OptionalNumberIn,
  REASONING_EFFORTS,
} from './validators.js';

/** Spec §8: session ids (body or `x-session-id` header) and end-user ids. */
export const SESSION_ID_MAX_LENGTH = 256;

/** Spec §4.5 / §4.6: `fast` is an alias of `priority`; `ultrafast` prefers ultrafast endpoints. */
export const SERVICE_TIERS = ['auto', 'default', 'fast', 'flex', 'priority', 'scale', 'ultrafast'] as const;
export const REASONING_SUMMARIES = ['auto', 'concise', 'detailed'] as const;

/** `reasoning`: effort and summary are bounded; other provider keys pass through. */
export class ReasoningConfigDto {
  @IsOptional()
  @IsIn(REASONING_EFFORTS)
  effort?: (typeof REASONING_EFFORTS)[number] | null;

  @IsOptional()
  @IsIn(REASONING_SUMMARIES)
  summary?: (typeof REASONING_SUMMARIES)[number] | null;

  @IsOptional()
  @IsBoolean()
  enabled?: boolean;

  @OptionalIntIn(0)
  max_tokens?: number;
}

/**
 * The fields a chat-completions body and a Responses body share, under the same names and
 * bounds: sampling, tools, reasoning, routing, session and plugins. Each body's own fields are
 * in its class; `null` counts as "not set" for every field here.
 */
export class GenerationParamsDto {
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  models?: string[];

  @OptionalNumberIn(0, 2)
  temperature?: number;

  @OptionalNumberIn(0, 1)
  top_p?: number;

  /** 1 means always the most likely token; 0 turns it off. */
  @OptionalIntIn(0)
  top_k?: number;

  @OptionalNumberIn(-2, 2)
  frequency_penalty?: number;

  @OptionalNumberIn(-2, 2)
  presence_penalty?: number;

  @OptionalIntIn(0, 20)
  top_logprobs?: number;

  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @IsOptional()
  @IsString()
  @MaxLength(SESSION_ID_MAX_LENGTH)
  session_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(SESSION_ID_MAX_LENGTH)
  user?: string;

  @IsOptional()
  @IsRequestMetadata()
  metadata?: Record<string, string>;

  @IsOptional()
  @IsArrayOfObjectsWith('type')
  tools?: Array<Record<string, unknown>>;

  @IsOptional()
  @IsToolChoice()
  tool_choice?: string | Record<string, unknown>;

  @IsOptional()
  @IsBoolean()
  parallel_tool_calls?: boolean;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ReasoningConfigDto)
  reasoning?: ReasoningConfigDto;

  @IsOptional()
  @IsIn(SERVICE_TIERS)
  service_tier?: (typeof SERVICE_TIERS)[number] | null;

  /** Deprecated alias of the provider sort partition (spec §4.5, §9): `fallback` is `model`, `sort` is `none`. */
  @IsOptional()
  @IsIn(['fallback', 'sort'])
  route?: 'fallback' | 'sort' | null;

  @IsOptional()
  @IsObject()
  provider?: Record<string, unknown>;

  @IsOptional()
  @IsPluginList()
  plugins?: Array<Record<string, unknown>>;

  /** The server-tool loop's stop conditions: checked here too, so a preset never stores a list every use would refuse. */
  @IsOptional()
  @IsStopConditions()
  stop_server_tools_when?: Array<Record<string, unknown>>;
}
