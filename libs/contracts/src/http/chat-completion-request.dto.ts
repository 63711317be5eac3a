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
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import {
  AgreesWithReasoningEffort,
  IsLogitBias,
  IsMessageContent,
  IsStopSequences,
  REASONING_EFFORTS,
  OptionalNumberIn,
  OptionalIntIn,
} from './validators.js';
import { PRESET_SLUG_PATTERN } from '../messages/resolve.messages.js';
import { GenerationParamsDto } from './generation-params.dto.js';

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

export const OUTPUT_MODALITIES = ['text', 'image', 'audio'] as const;
/** The five response-format variants (spec §4.6 names `json_object`; the others are OpenRouter's). */
export const RESPONSE_FORMAT_TYPES = ['text', 'json_object', 'json_schema', 'grammar', 'python'] as const;

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
export class ChatCompletionParamsDto extends GenerationParamsDto {
  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => ChatMessageDto)
  messages!: ChatMessageDto[];

  @OptionalNumberIn(0, 1)
  top_a?: number;

  /** Minimum probability relative to the top token. */
  @OptionalNumberIn(0, 1)
  min_p?: number;

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

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => StreamOptionsDto)
  stream_options?: StreamOptionsDto;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ResponseFormatDto)
  response_format?: ResponseFormatDto;

  @IsOptional()
  @IsIn(REASONING_EFFORTS)
  @AgreesWithReasoningEffort()
  reasoning_effort?: (typeof REASONING_EFFORTS)[number] | null;

  @IsOptional()
  @IsArray()
  @IsIn(OUTPUT_MODALITIES, { each: true })
  modalities?: Array<(typeof OUTPUT_MODALITIES)[number]>;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => PredictionDto)
  prediction?: PredictionDto;
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
