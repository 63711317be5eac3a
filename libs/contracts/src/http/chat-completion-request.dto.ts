import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import {
  AgreesWithReasoningEffort,
  IsArrayOfObjectsWith,
  IsPluginList,
  IsStopConditions,
  IsLogitBias,
  IsMessageContent,
  IsRequestMetadata,
  IsStopSequences,
  IsToolChoice,
  REASONING_EFFORTS,
  OptionalNumberIn,
  OptionalIntIn,
} from './validators.js';
import { PRESET_SLUG_PATTERN } from '../messages/resolve.messages.js';

/** Spec §8: session ids (body or `x-session-id` header) and end-user ids. */
export const SESSION_ID_MAX_LENGTH = 256;

export const MESSAGE_ROLES = ['system', 'developer', 'user', 'assistant', 'tool'] as const;

export class ChatMessageDto {
  @IsIn(MESSAGE_ROLES)
  role!: (typeof MESSAGE_ROLES)[number];

  @IsOptional()
  @IsMessageContent()
  content?: string | null | Array<Record<string, unknown>>;

  @IsOptional()
  @IsString()
  name?: string;

  @IsOptional()
  @IsString()
  tool_call_id?: string;

  @IsOptional()
  @IsArray()
  tool_calls?: Array<Record<string, unknown>>;
}

/** Spec §4.5 / §4.6: `fast` is an alias of `priority`; `ultrafast` prefers ultrafast endpoints. */
export const SERVICE_TIERS = ['auto', 'default', 'fast', 'flex', 'priority', 'scale', 'ultrafast'] as const;
export const OUTPUT_MODALITIES = ['text', 'image', 'audio'] as const;
export const REASONING_SUMMARIES = ['auto', 'concise', 'detailed'] as const;
/** The five response-format variants (spec §4.6 names `json_object`; the others are OpenRouter's). */
export const RESPONSE_FORMAT_TYPES = ['text', 'json_object', 'json_schema', 'grammar', 'python'] as const;

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

export class ResponseFormatDto {
  @IsIn(RESPONSE_FORMAT_TYPES)
  type!: (typeof RESPONSE_FORMAT_TYPES)[number];
}

export class PredictionDto {
  @IsIn(['content'])
  type!: 'content';

  @IsMessageContent()
  content!: string | Array<Record<string, unknown>>;
}

export class StreamOptionsDto {
  @IsOptional()
  @IsBoolean()
  include_usage?: boolean;
}

/**
 * The bounded fields of a chat-completions body (spec §4.6, §8), shared by
 * `POST /v1/chat/completions` and `POST /v1/presets/{slug}/chat/completions`. Only fields
 * with bounds are modelled; the rest of the body is passed on untouched, so the gateway
 * validates without stripping. `null` counts as "not set" for every optional field.
 */
export class ChatCompletionParamsDto {
  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => ChatMessageDto)
  messages!: ChatMessageDto[];

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

  @OptionalNumberIn(0, 1)
  top_a?: number;

  /** Minimum probability relative to the top token. */
  @OptionalNumberIn(0, 1)
  min_p?: number;

  @OptionalNumberIn(-2, 2)
  frequency_penalty?: number;

  @OptionalNumberIn(-2, 2)
  presence_penalty?: number;

  /** 1.0 means no penalty; OpenRouter documents (0, 2]. */
  @OptionalNumberIn(0, 2)
  repetition_penalty?: number;

  @OptionalIntIn(1)
  max_tokens?: number;

  @OptionalIntIn(1)
  max_completion_tokens?: number;

  @IsOptional()
  @IsStopSequences(4)
  stop?: string | string[] | null;

  @OptionalIntIn(1, 128)
  n?: number;

  @IsOptional()
  @IsInt()
  seed?: number;

  @IsOptional()
  @IsLogitBias()
  logit_bias?: Record<string, number>;

  @IsOptional()
  @IsBoolean()
  logprobs?: boolean;

  @OptionalIntIn(0, 20)
  top_logprobs?: number;

  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => StreamOptionsDto)
  stream_options?: StreamOptionsDto;

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
  @Type(() => ResponseFormatDto)
  response_format?: ResponseFormatDto;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ReasoningConfigDto)
  reasoning?: ReasoningConfigDto;

  @IsOptional()
  @IsIn(REASONING_EFFORTS)
  @AgreesWithReasoningEffort()
  reasoning_effort?: (typeof REASONING_EFFORTS)[number] | null;

  @IsOptional()
  @IsIn(SERVICE_TIERS)
  service_tier?: (typeof SERVICE_TIERS)[number] | null;

  /** Deprecated alias of the provider sort partition (spec §4.5, §9): `fallback` is `model`, `sort` is `none`. */
  @IsOptional()
  @IsIn(['fallback', 'sort'])
  route?: 'fallback' | 'sort' | null;

  @IsOptional()
  @IsArray()
  @IsIn(OUTPUT_MODALITIES, { each: true })
  modalities?: Array<(typeof OUTPUT_MODALITIES)[number]>;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PredictionDto)
  prediction?: PredictionDto;

  @IsOptional()
  @IsObject()
  provider?: Record<string, unknown>;

  @IsOptional()
  @IsPluginList()
  plugins?: Array<Record<string, unknown>>;

  /** The server-tool loop's stop conditions (ADR 0041): checked here too, so a preset never stores a list every use would refuse. */
  @IsOptional()
  @IsStopConditions()
  stop_server_tools_when?: Array<Record<string, unknown>>;
}

/**
 * `POST /v1/chat/completions`. `model` may be left out only when a `preset` names the
 * preset that supplies it (`model: "@preset/<slug>"` and `"<model>@preset/<slug>"` are
 * model strings and need no rule here).
 */
export class ChatCompletionRequestDto extends ChatCompletionParamsDto {
  @ValidateIf((body: ChatCompletionRequestDto) => body.preset === undefined || body.model !== undefined)
  @IsString()
  @MinLength(1)
  model!: string;

  @IsOptional()
  @Matches(PRESET_SLUG_PATTERN, { message: 'preset must be a preset slug: lower-case letters, digits, - and _, at most 64' })
  preset?: string;
}
