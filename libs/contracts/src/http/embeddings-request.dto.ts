import { IsIn, IsObject, IsOptional, IsString, MaxLength, MinLength, registerDecorator, type ValidationOptions } from 'class-validator';
import { SESSION_ID_MAX_LENGTH } from './generation-params.dto.js';
import { OptionalIntIn } from './validators.js';

/** OpenAI's bound on inputs per embeddings request (https://platform.openai.com/docs/api-reference/embeddings/create). */
export const EMBEDDINGS_MAX_INPUTS = 2048;
/** Largest `dimensions` accepted; the provider may allow fewer for a given model. */
export const EMBEDDINGS_MAX_DIMENSIONS = 65_536;
export const EMBEDDING_ENCODINGS = ['float', 'base64'] as const;

const isTokenArray = (value: unknown): value is number[] =>
  Array.isArray(value) && value.length > 0 && value.every((token) => Number.isInteger(token) && (token as number) >= 0);

/**
 * `input`: a non-empty string, an array of 1..2048 non-empty strings, an array of token ids,
 * or an array of 1..2048 token arrays, as OpenAI's embeddings endpoint accepts.
 */
export function IsEmbeddingsInput(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isEmbeddingsInput',
      target: target.constructor,
      propertyName,
      options: {
        message: `${propertyName} must be a non-empty string, an array of 1 to ${EMBEDDINGS_MAX_INPUTS} non-empty strings, an array of token ids, or an array of 1 to ${EMBEDDINGS_MAX_INPUTS} token arrays`,
        ...options,
      },
      validator: {
        validate: (value: unknown) => {
          if (typeof value === 'string') return value.length > 0;
          if (!Array.isArray(value) || value.length === 0 || value.length > EMBEDDINGS_MAX_INPUTS) return false;
          if (isTokenArray(value)) return true;
          return (
            value.every((item) => (typeof item === 'string' && item.length > 0) || isTokenArray(item)) &&
            value.every((item) => typeof item === typeof value[0])
          );
        },
      },
    });
}

/**
 * POST /v1/embeddings (spec §2.1 embeddings body). Fields without bounds pass through to the
 * provider untouched, as for chat completions.
 */
export class EmbeddingsRequestDto {
  @IsString()
  @MinLength(1)
  model!: string;

  @IsEmbeddingsInput()
  input!: string | string[] | number[] | number[][];

  @IsOptional()
  @IsIn(EMBEDDING_ENCODINGS)
  encoding_format?: (typeof EMBEDDING_ENCODINGS)[number];

  @OptionalIntIn(1, EMBEDDINGS_MAX_DIMENSIONS)
  dimensions?: number;

  /** End-user id: hashed before it reaches a provider (spec §4.5), at most 256 characters. */
  @IsOptional()
  @IsString()
  @MaxLength(SESSION_ID_MAX_LENGTH)
  user?: string;

  /** Provider routing preferences, as for chat completions. */
  @IsOptional()
  @IsObject()
  provider?: Record<string, unknown>;
}
