import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { IsMessageContent, IsRequestMetadata, IsStopSequences } from './validators.js';

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

/**
 * The chat-completions body (spec §2.1, §4.6, §8). Only fields with bounds are modelled;
 * the rest of the body is passed to the provider untouched, so the gateway validates
 * without stripping.
 */
export class ChatCompletionRequestDto {
  @IsString()
  @MinLength(1)
  model!: string;

  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => ChatMessageDto)
  messages!: ChatMessageDto[];

  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(2)
  temperature?: number;

  @IsOptional()
  @IsNumber()
  @Min(0)
  @Max(1)
  top_p?: number;

  @IsOptional()
  @IsNumber()
  @Min(-2)
  @Max(2)
  frequency_penalty?: number;

  @IsOptional()
  @IsNumber()
  @Min(-2)
  @Max(2)
  presence_penalty?: number;

  @IsOptional()
  @IsInt()
  @Min(1)
  max_tokens?: number;

  @IsOptional()
  @IsInt()
  @Min(1)
  max_completion_tokens?: number;

  @IsOptional()
  @IsStopSequences(4)
  stop?: string | string[] | null;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(128)
  n?: number;

  @IsOptional()
  @IsInt()
  seed?: number;

  @IsOptional()
  @IsBoolean()
  logprobs?: boolean;

  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(20)
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
  @IsArray()
  tools?: Array<Record<string, unknown>>;

  @IsOptional()
  @IsObject()
  response_format?: Record<string, unknown>;
}
