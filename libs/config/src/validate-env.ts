import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';

export class InvalidEnvironmentError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid environment:\n  - ${problems.join('\n  - ')}`);
    this.name = 'InvalidEnvironmentError';
  }
}

/**
 * Reads the environment into a validated, typed object, or throws listing every problem at
 * once, so a service fails at start rather than at its first request. Values are never
 * echoed back: some of them are secrets.
 */
export function validateEnv<T extends object>(schema: new () => T, env: NodeJS.ProcessEnv = process.env): T {
  const instance = plainToInstance(schema, { ...env }, { enableImplicitConversion: true, exposeDefaultValues: true });
  const errors = validateSync(instance, { whitelist: false, forbidUnknownValues: true });
  if (errors.length > 0) {
    throw new InvalidEnvironmentError(errors.map((error) => `${error.property}: ${Object.values(error.constraints ?? {}).join('; ')}`));
  }
  return instance;
}
