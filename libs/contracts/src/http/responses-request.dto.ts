import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { PRESET_SLUG_PATTERN } from '../messages/resolve.messages.js';
import { GenerationParamsDto, SESSION_ID_MAX_LENGTH } from './generation-params.dto.js';
import { IsAbsent, IsResponsesInput, OptionalIntIn } from './validators.js';

/** Spec §4.5 / §8: server-tool agent steps, default and maximum. */
export const MAX_TOOL_CALLS_LIMIT = 30;

/** Spec §4.5: the five values of `include`. */
export const RESPONSES_INCLUDES = [
  'file_search_call.results',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
  'reasoning.encrypted_content',
  'code_interpreter_call.outputs',
] as const;

export const TRUNCATION_MODES = ['auto', 'disabled'] as const;
/** Spec §4.5: the output modalities of a response. */
export const RESPONSES_MODALITIES = ['text', 'image'] as const;
export const TEXT_FORMAT_TYPES = ['text', 'json_object', 'json_schema'] as const;
export const TEXT_VERBOSITIES = ['low', 'medium', 'high'] as const;

export class ResponsesTextFormatDto {
  @IsIn(TEXT_FORMAT_TYPES)
  type!: (typeof TEXT_FORMAT_TYPES)[number];

  /** json_schema: the schema's name (OpenAI: letters, digits, _ and -, at most 64). */
  @ValidateIf((format: ResponsesTextFormatDto) => format.type === 'json_schema')
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,64}$/, { message: 'text.format.name must be 1 to 64 letters, digits, _ or -' })
  name?: string;

  @ValidateIf((format: ResponsesTextFormatDto) => format.type === 'json_schema')
  @IsObject()
  schema?: Record<string, unknown>;

  @IsOptional()
  @IsBoolean()
  strict?: boolean | null;

  @IsOptional()
  @IsString()
  description?: string;
}

/** `text`: the output format and verbosity. */
export class ResponsesTextDto {
  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ResponsesTextFormatDto)
  format?: ResponsesTextFormatDto;

  @IsOptional()
  @IsIn(TEXT_VERBOSITIES)
  verbosity?: (typeof TEXT_VERBOSITIES)[number] | null;
}

/** `prompt`: a stored prompt, which here is a preset (its slug), with `{{variable}}` values. */
export class ResponsesPromptDto {
  @IsString()
  @Matches(PRESET_SLUG_PATTERN, { message: 'prompt.id must be a preset slug: lower-case letters, digits, - and _, at most 64' })
  id!: string;

  @IsOptional()
  @IsObject()
  variables?: Record<string, unknown> | null;
}

export class ResponsesDebugDto {
  @IsOptional()
  @IsBoolean()
  echo_upstream_body?: boolean;
}

export class CacheControlDto {
  @IsIn(['ephemeral'])
  type!: 'ephemeral';

  @IsOptional()
  @IsString()
  ttl?: string;
}

/**
 * `POST /v1/responses` (spec §4.5, §8): the bounded fields of a Responses-API body, under the
 * names `@openrouter/sdk` (`ResponsesRequest`) and `openai` send. As on chat, the rest of the
 * body is passed on untouched; inference translates it (apps/inference/src/responses).
 * `null` counts as "not set" for every optional field.
 */
export class ResponsesRequestDto extends GenerationParamsDto {
  /** May be left out only when `prompt` names a preset that supplies the model. */
  @ValidateIf((body: ResponsesRequestDto) => body.prompt === undefined || body.prompt === null || body.model !== undefined)
  @IsString()
  @MinLength(1)
  model!: string;

  @IsOptional()
  @IsResponsesInput()
  input?: string | Array<Record<string, unknown>>;

  @IsOptional()
  @IsString()
  instructions?: string | null;

  @OptionalIntIn(1)
  max_output_tokens?: number;

  @OptionalIntIn(0, MAX_TOOL_CALLS_LIMIT)
  max_tool_calls?: number;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ResponsesTextDto)
  text?: ResponsesTextDto;

  /** Hashed per workspace before any provider sees it (as `user`). */
  @IsOptional()
  @IsString()
  @MaxLength(SESSION_ID_MAX_LENGTH)
  safety_identifier?: string;

  @IsOptional()
  @IsIn(TRUNCATION_MODES)
  truncation?: (typeof TRUNCATION_MODES)[number] | null;

  @IsOptional()
  @IsArray()
  @IsIn(RESPONSES_INCLUDES, { each: true })
  include?: Array<(typeof RESPONSES_INCLUDES)[number]> | null;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => CacheControlDto)
  cache_control?: CacheControlDto;

  @IsOptional()
  @IsString()
  @MaxLength(SESSION_ID_MAX_LENGTH)
  prompt_cache_key?: string;

  @IsOptional()
  @IsObject()
  prompt_cache_options?: Record<string, unknown>;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ResponsesPromptDto)
  prompt?: ResponsesPromptDto;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => ResponsesDebugDto)
  debug?: ResponsesDebugDto;

  @IsOptional()
  @IsObject()
  image_config?: Record<string, unknown>;

  @IsOptional()
  @IsArray()
  @IsIn(RESPONSES_MODALITIES, { each: true })
  modalities?: Array<(typeof RESPONSES_MODALITIES)[number]>;

  @IsOptional()
  @IsObject()
  trace?: Record<string, unknown>;

  /** Responses are never stored here: `store: true` would promise a retrieval that does not exist. */
  @IsOptional()
  @IsIn([false], { message: 'store must be false: this gateway does not store responses' })
  store?: false;

  /** Spec §4.5: not supported, any non-null value is a 400 (left out or null: nothing to check). */
  @IsOptional()
  @IsAbsent({ message: 'previous_response_id is not supported: send the full conversation in input (responses are not stored)' })
  previous_response_id?: null;

  /** Server-side conversations are stored state too: the answer would miss that history. */
  @IsOptional()
  @IsAbsent({ message: 'conversation is not supported: send the full conversation in input (conversations are not stored)' })
  conversation?: null;

  /** OpenAI's own moderation pass and access programs: not run here, and the answer may differ without them. */
  @IsOptional()
  @IsAbsent({ message: 'moderation is not supported: use the moderation plugin (plugins: [{"id": "moderation"}])' })
  moderation?: null;

  @IsOptional()
  @IsAbsent({ message: 'access_programs is not supported' })
  access_programs?: null;

  /** Request-level image options of OpenAI's image tool; this gateway's are `image_config` with `modalities`. */
  @IsOptional()
  @IsAbsent({ message: 'image is not supported: use image_config with modalities' })
  image?: null;

  @IsOptional()
  @IsIn([false], { message: 'background must be false: background responses need stored responses, which this gateway does not keep' })
  background?: false;
}
