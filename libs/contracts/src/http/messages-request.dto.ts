import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  MinLength,
  registerDecorator,
  ValidateNested,
  type ValidationOptions,
} from 'class-validator';
import { SESSION_ID_MAX_LENGTH } from './generation-params.dto.js';
import { OptionalNumberIn, OptionalIntIn } from './validators.js';

/** A string, or an array of content blocks (objects with a string `type`), as Anthropic takes content and system. */
function IsTextOrBlocks(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isTextOrBlocks',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be a string or an array of content blocks, each with a string type`, ...options },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' ||
          (Array.isArray(value) &&
            value.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item) && typeof item.type === 'string')),
      },
    });
}

/** Anthropic's `metadata`: only `user_id` (hashed before any provider sees it). */
export class MessagesMetadataDto {
  @IsOptional()
  @IsString()
  @MaxLength(SESSION_ID_MAX_LENGTH)
  user_id?: string | null;
}

export class MessagesInputMessageDto {
  /** `system` anywhere in the conversation, as Anthropic takes it from Claude Code today. */
  @IsIn(['user', 'assistant', 'system'])
  role!: 'user' | 'assistant' | 'system';

  /** A string, or content blocks (text, image, document, tool_use, tool_result, thinking, ...). */
  @IsTextOrBlocks()
  content!: string | Array<Record<string, unknown>>;
}

/**
 * `POST /v1/messages`: Anthropic's Messages API body, bounded as Anthropic bounds it. Fields
 * not modelled here (container, mcp_servers, context_management, service_tier, the gateway's
 * `provider` / `models` / `preset` / `session_id`) pass on to inference as sent.
 */
export class MessagesRequestDto {
  @IsString()
  @MinLength(1)
  model!: string;

  @IsInt()
  @Min(1)
  max_tokens!: number;

  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => MessagesInputMessageDto)
  messages!: MessagesInputMessageDto[];

  @IsOptional()
  @IsTextOrBlocks()
  system?: string | Array<Record<string, unknown>>;

  @IsOptional()
  @IsObject()
  @ValidateNested()
  @Type(() => MessagesMetadataDto)
  metadata?: MessagesMetadataDto;

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(8191)
  @IsString({ each: true })
  stop_sequences?: string[];

  @IsOptional()
  @IsBoolean()
  stream?: boolean;

  @OptionalNumberIn(0, 1)
  temperature?: number;

  @OptionalNumberIn(0, 1)
  top_p?: number;

  @OptionalIntIn(0)
  top_k?: number;

  @IsOptional()
  @IsArray()
  tools?: Array<Record<string, unknown>>;

  @IsOptional()
  @IsObject()
  tool_choice?: Record<string, unknown>;

  @IsOptional()
  @IsObject()
  thinking?: Record<string, unknown>;

  @IsOptional()
  @IsString()
  @MaxLength(SESSION_ID_MAX_LENGTH)
  session_id?: string;
}

/**
 * `POST /v1/messages/count_tokens`: what Anthropic's count endpoint takes (no max_tokens, no
 * sampling). Fields not modelled here (output_config, context_management, mcp_servers, the
 * gateway's routing fields) pass on as sent.
 */
export class MessagesCountTokensRequestDto {
  @IsString()
  @MinLength(1)
  model!: string;

  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => MessagesInputMessageDto)
  messages!: MessagesInputMessageDto[];

  @IsOptional()
  @IsTextOrBlocks()
  system?: string | Array<Record<string, unknown>>;

  @IsOptional()
  @IsArray()
  tools?: Array<Record<string, unknown>>;

  @IsOptional()
  @IsObject()
  tool_choice?: Record<string, unknown>;

  @IsOptional()
  @IsObject()
  thinking?: Record<string, unknown>;
}
