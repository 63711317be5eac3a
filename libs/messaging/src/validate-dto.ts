import type { ValidationError } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { GatewayError } from '@gw/errors';

/**
 * What happens to properties the class does not declare: `keep` (a chat body, passed on to
 * providers whole), `strip` (internal messages), `reject` (query strings: a typo is a 400).
 */
export type UnknownProperties = 'keep' | 'strip' | 'reject';

/** Every failed constraint as `path.to.property: message`, nested objects included. */
export function describeValidationErrors(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((text) => `${path}: ${text}`);
    return [...own, ...describeValidationErrors(error.children ?? [], path)];
  });
}

/** Turns class-validator failures into a 400 GatewayError listing every problem. */
export function validationErrorToGatewayError(errors: ValidationError[]): GatewayError {
  return GatewayError.badRequest(describeValidationErrors(errors).join('; ') || 'Invalid request');
}

/** Validates a plain object against a class-validator DTO; 400 listing every problem otherwise. */
export async function validateDto<T extends object>(schema: new () => T, value: unknown, unknown: UnknownProperties): Promise<T> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw GatewayError.badRequest('Expected a JSON object');
  }
  const instance = plainToInstance(schema, value);
  const errors = await validate(instance, {
    whitelist: unknown !== 'keep',
    forbidNonWhitelisted: unknown === 'reject',
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
  });
  if (errors.length > 0) throw validationErrorToGatewayError(errors);
  return instance;
}
