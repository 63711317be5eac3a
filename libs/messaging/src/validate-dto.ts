import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { GatewayError } from '@gw/errors';
import { validationErrorToGatewayError } from './payload-validation.pipe.js';

export interface ValidateDtoOptions {
  /** Reject properties the class does not declare (query strings); off for bodies passed through. */
  forbidUnknown: boolean;
}

/** Validates a plain object against a class-validator DTO; 400 listing every problem otherwise. */
export async function validateDto<T extends object>(schema: new () => T, value: unknown, options: ValidateDtoOptions): Promise<T> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw GatewayError.badRequest('Expected a JSON object');
  }
  const instance = plainToInstance(schema, value);
  const errors = await validate(instance, {
    whitelist: options.forbidUnknown,
    forbidNonWhitelisted: options.forbidUnknown,
    forbidUnknownValues: true,
  });
  if (errors.length > 0) throw validationErrorToGatewayError(errors);
  return instance;
}
