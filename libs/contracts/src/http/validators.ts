import { IsInt, IsNumber, IsOptional, Max, Min, registerDecorator, type ValidationOptions } from 'class-validator';
import { pluginIdProblem } from '../plugins.js';
import { stopConditionsProblem } from '../stop-conditions.js';

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

/** Spec §4.6: the reasoning effort levels, shared by `reasoning_effort` and `reasoning.effort`. */
export const REASONING_EFFORTS = ['max', 'xhigh', 'high', 'medium', 'low', 'minimal', 'none'] as const;

/**
 * `reasoning_effort` is a shorthand for `reasoning.effort` and may not differ from it (spec
 * §4.6). Only compared when both carry a value: null means "not set" for either.
 */
export function AgreesWithReasoningEffort(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'agreesWithReasoningEffort',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must equal reasoning.effort when both are given`, ...options },
      validator: {
        validate: (value: unknown, args) => {
          const reasoning = (args?.object as { reasoning?: unknown }).reasoning;
          if (typeof reasoning !== 'object' || reasoning === null) return true;
          const effort = (reasoning as { effort?: unknown }).effort;
          return effort === undefined || effort === null || effort === value;
        },
      },
    });
}

export const LOGIT_BIAS_RANGE = { min: -100, max: 100 } as const;

/** `logit_bias`: token id -> bias in -100..100 (OpenAI's documented bound). */
export function IsLogitBias(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isLogitBias',
      target: target.constructor,
      propertyName,
      options: {
        message: `${propertyName} must map token ids to numbers from ${LOGIT_BIAS_RANGE.min} to ${LOGIT_BIAS_RANGE.max}`,
        ...options,
      },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.entries(value).every(
            ([token, bias]) =>
              /^\d+$/.test(token) && typeof bias === 'number' && bias >= LOGIT_BIAS_RANGE.min && bias <= LOGIT_BIAS_RANGE.max,
          ),
      },
    });
}

/** `tool_choice` (chat completions and Responses): `none`, `auto`, `required`, or an object naming one tool by its `type`. */
export function IsToolChoice(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isToolChoice',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be "none", "auto", "required" or an object with a type`, ...options },
      validator: {
        validate: (value: unknown) =>
          value === 'none' ||
          value === 'auto' ||
          value === 'required' ||
          (typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as { type?: unknown }).type === 'string'),
      },
    });
}

/** An array of objects that each carry a string `key` (tools by `type`, plugins by `id`). */
export function IsArrayOfObjectsWith(key: string, options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isArrayOfObjectsWith',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be an array of objects, each with a string ${key}`, ...options },
      validator: {
        validate: (value: unknown) =>
          Array.isArray(value) &&
          value.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item) && typeof item[key] === 'string'),
      },
    });
}

/** A field that must be absent or null (spec §4.5 `previous_response_id`: any other value is a 400). */
export function IsAbsent(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isAbsent',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be null or left out`, ...options },
      constraints: [],
      validator: { validate: (value: unknown) => value === undefined || value === null },
    });
}

/**
 * Responses-API `input`: a string, or an array of items, each an object with a `type` or a
 * `role` (an easy message). Items are checked one by one where they are translated.
 */
export function IsResponsesInput(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isResponsesInput',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be a string or an array of items, each an object with a type or a role`, ...options },
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' ||
          (Array.isArray(value) &&
            value.every(
              (item) =>
                typeof item === 'object' &&
                item !== null &&
                !Array.isArray(item) &&
                (typeof item.type === 'string' || typeof item.role === 'string'),
            )),
      },
    });
}

/**
 * `plugins`: an array of objects, each with a string `id` this gateway knows and serves (ADR
 * 0048); the message names the first unknown or refused one. Options are checked by inference.
 */
export function IsPluginList(options?: ValidationOptions) {
  const problem = (value: unknown): string | undefined => {
    if (
      !Array.isArray(value) ||
      !value.every((item) => typeof item === 'object' && item !== null && !Array.isArray(item) && typeof item.id === 'string')
    ) {
      return 'plugins must be an array of objects, each with a string id';
    }
    for (const [index, item] of (value as Array<{ id: string; enabled?: unknown }>).entries()) {
      const found = pluginIdProblem(item.id, index);
      if (found) return found.message;
    }
    return undefined;
  };
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isPluginList',
      target: target.constructor,
      propertyName,
      options: { message: (args) => problem(args.value) ?? `${propertyName} is invalid`, ...options },
      validator: { validate: (value: unknown) => problem(value) === undefined },
    });
}

/** `stop_server_tools_when`: at least one condition, each of a known kind with its value (stop-conditions.ts). */
export function IsStopConditions(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isStopConditions',
      target: target.constructor,
      propertyName,
      options: { message: (args) => stopConditionsProblem(args.value) ?? `${propertyName} is invalid`, ...options },
      validator: { validate: (value: unknown) => stopConditionsProblem(value) === undefined },
    });
}

/** Applies decorators as TypeScript would if they were written one per line, top to bottom. */
export function stacked(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, propertyName) => {
    for (const decorator of decorators.toReversed()) decorator(target, propertyName);
  };
}

/** An optional number within [min, max]: `@IsOptional() @IsNumber() @Min(min) @Max(max)`. */
export function OptionalNumberIn(min: number, max: number): PropertyDecorator {
  return stacked(IsOptional(), IsNumber(), Min(min), Max(max));
}

/** An optional integer of at least `min` (and at most `max` when given): `@IsOptional() @IsInt() @Min(min) @Max(max)`. */
export function OptionalIntIn(min: number, max?: number): PropertyDecorator {
  return max === undefined ? stacked(IsOptional(), IsInt(), Min(min)) : stacked(IsOptional(), IsInt(), Min(min), Max(max));
}
