import { registerDecorator, type ValidationOptions } from 'class-validator';

/** `stop`: a string, or an array of at most `maxItems` strings (spec §8: 4). */
export function IsStopSequences(maxItems: number, options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isStopSequences',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be a string or an array of at most ${maxItems} strings`, ...options },
      validator: {
        validate: (value: unknown) =>
          value === null ||
          typeof value === 'string' ||
          (Array.isArray(value) && value.length <= maxItems && value.every((item) => typeof item === 'string')),
      },
    });
}

export const METADATA_LIMITS = { pairs: 16, keyLength: 64, valueLength: 512 } as const;

/** Request metadata (spec §8): at most 16 string pairs, keys <= 64 chars without brackets, values <= 512. */
export function IsRequestMetadata(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isRequestMetadata',
      target: target.constructor,
      propertyName,
      options: {
        message: `${propertyName} must have at most ${METADATA_LIMITS.pairs} string pairs, keys of at most ${METADATA_LIMITS.keyLength} characters without brackets and values of at most ${METADATA_LIMITS.valueLength}`,
        ...options,
      },
      validator: {
        validate: (value: unknown) => {
          if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
          const entries = Object.entries(value);
          return (
            entries.length <= METADATA_LIMITS.pairs &&
            entries.every(
              ([key, item]) =>
                key.length <= METADATA_LIMITS.keyLength &&
                !/[[\]]/.test(key) &&
                typeof item === 'string' &&
                item.length <= METADATA_LIMITS.valueLength,
            )
          );
        },
      },
    });
}

/** A chat message's content: a string, null (assistant with tool calls), or an array of parts. */
export function IsMessageContent(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isMessageContent',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be a string, null or an array of content parts`, ...options },
      validator: {
        validate: (value: unknown) =>
          value === null ||
          typeof value === 'string' ||
          (Array.isArray(value) && value.every((part) => typeof part === 'object' && part !== null && typeof part.type === 'string')),
      },
    });
}
