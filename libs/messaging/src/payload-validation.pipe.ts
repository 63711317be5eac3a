import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { GatewayError } from '@gw/errors';

function describe(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((text) => `${path}: ${text}`);
    return [...own, ...describe(error.children ?? [], path)];
  });
}

/** Turns class-validator failures into a 400 GatewayError listing every problem. */
export function validationErrorToGatewayError(errors: ValidationError[]): GatewayError {
  return GatewayError.badRequest(describe(errors).join('; ') || 'Invalid request');
}

/**
 * Validates every message a service receives against its contract class, so a message
 * from a misbehaving replica is refused before it reaches business code.
 */
export function createPayloadValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    transform: true,
    whitelist: true,
    forbidUnknownValues: true,
    exceptionFactory: validationErrorToGatewayError,
  });
}
