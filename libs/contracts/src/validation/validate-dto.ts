import type { ValidationError } from 'class-validator';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { GatewayError } from '@gw/errors';
import { memoiseValidationMetadata } from './metadata-cache.js';

// Every service validates through this module: the rule lookups are memoised once for the process (ADR 0057).
memoiseValidationMetadata();

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
  const inherited = inheritedNameAsKey(value, unknown === 'reject');
  if (inherited) throw GatewayError.badRequest(inherited, { param: inherited.split(':')[0] });
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

/**
 * Names every plain object inherits (`hasOwnProperty`, `toString`, `valueOf`, `constructor`,
 * `__proto__`, ...). class-validator's whitelist looks property names up in a plain object, so
 * it takes these for declared properties and lets them through (then `toString: 1` breaks
 * whatever calls it); they are refused here like any unknown field (issue 9 item 8).
 */
const INHERITED_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * The first own property named like an inherited member, as `path: property <name> should not
 * exist`: at any depth when unknown properties are refused, at the top level otherwise (a
 * body passed on to providers may hold a JSON schema with a property called `constructor`).
 */
function inheritedNameAsKey(value: object, deep: boolean): string | undefined {
  const stack: Array<{ node: unknown; path: string }> = [{ node: value, path: '' }];
  while (stack.length > 0) {
    const { node, path } = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    for (const [key, child] of Object.entries(node)) {
      const childPath = Array.isArray(node) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
      if (!Array.isArray(node) && INHERITED_NAMES.has(key)) return `${childPath}: property ${key} should not exist`;
      if (deep) stack.push({ node: child, path: childPath });
    }
  }
  return undefined;
}
