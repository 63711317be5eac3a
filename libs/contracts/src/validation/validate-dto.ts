import type { ValidationError } from 'class-validator';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { GatewayError } from '@gw/errors';
import { memoiseValidationMetadata } from './metadata-cache.js';

// Every service validates through this module: the rule lookups are memoised once for the process.
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
  const instance = toInstance(schema, value);
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
 * `plainToInstance`, with its one known throw made a 400: class-transformer reads
 * `value.constructor` of nested typed objects and throws a TypeError when a body sets a key of
 * that name deeper down (`messages[0].tool_calls[0].constructor`, or a JSON schema's property
 * called `constructor`), which was a 500. The answer names the property, as the top-level check
 * does; such a body cannot be validated, so it is refused rather than passed on unchecked.
 */
function toInstance<T extends object>(schema: new () => T, value: object): T {
  try {
    return plainToInstance(schema, value);
  } catch (error) {
    const inherited = error instanceof TypeError ? inheritedNameAsKey(value, true) : undefined;
    if (inherited) throw GatewayError.badRequest(inherited, { param: inherited.split(':')[0] });
    throw error;
  }
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
