import { GatewayError } from '@gw/errors';

type Json = Record<string, unknown>;

/**
 * Reads one plugin object's options strictly: a field the plugin does not take, or a value of
 * the wrong kind, is a 400 naming `plugins[i].field` (a request that asks for something gets it
 * or is told why not, never silence).
 */
export class PluginOptions {
  constructor(
    private readonly raw: Json,
    /** `plugins[2]`, for messages. */
    readonly where: string,
    readonly id: string,
    allowed: readonly string[],
  ) {
    for (const field of Object.keys(raw)) {
      if (field === 'id' || field === 'enabled' || allowed.includes(field)) continue;
      throw GatewayError.badRequest(
        `${where}.${field} is not an option of the ${id} plugin (it takes ${['enabled', ...allowed].join(', ')})`,
        {
          reason: 'invalid_plugin_option',
          plugin: id,
          param: `${where}.${field}`,
        },
      );
    }
  }

  private fail(field: string, expected: string): never {
    throw GatewayError.badRequest(`${this.where}.${field} must be ${expected}`, {
      reason: 'invalid_plugin_option',
      plugin: this.id,
      param: `${this.where}.${field}`,
    });
  }

  has(field: string): boolean {
    return this.raw[field] !== undefined && this.raw[field] !== null;
  }

  string(field: string, options: { oneOf?: readonly string[]; maxLength?: number } = {}): string | undefined {
    const value = this.raw[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') this.fail(field, 'a string');
    if (options.oneOf && !options.oneOf.includes(value)) this.fail(field, `one of ${options.oneOf.join(', ')}`);
    if (options.maxLength !== undefined && value.length > options.maxLength) this.fail(field, `at most ${options.maxLength} characters`);
    return value;
  }

  integer(field: string, min: number, max: number): number | undefined {
    const value = this.raw[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
      this.fail(field, `an integer from ${min} to ${max}`);
    return value;
  }

  number(field: string, min: number, max: number): number | undefined {
    const value = this.raw[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
      this.fail(field, `a number from ${min} to ${max}`);
    return value;
  }

  boolean(field: string): boolean | undefined {
    const value = this.raw[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'boolean') this.fail(field, 'true or false');
    return value;
  }

  strings(field: string, options: { maxItems?: number; minItems?: number } = {}): string[] | undefined {
    const value = this.raw[field];
    if (value === undefined || value === null) return undefined;
    const { maxItems = 1024, minItems = 0 } = options;
    if (
      !Array.isArray(value) ||
      value.length > maxItems ||
      value.length < minItems ||
      !value.every((item) => typeof item === 'string' && item.length > 0 && item.length <= 1024)
    ) {
      this.fail(field, `an array of ${minItems}-${maxItems} non-empty strings`);
    }
    return value as string[];
  }

  object(field: string): Json | undefined {
    const value = this.raw[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) this.fail(field, 'an object');
    return value as Json;
  }

  /** A field the SDK documents that this gateway cannot honour: a 400 naming it, never ignored. */
  refuse(field: string, why: string): void {
    if (!this.has(field)) return;
    throw GatewayError.badRequest(`${this.where}.${field} is not supported by the ${this.id} plugin here: ${why}`, {
      reason: 'unsupported_plugin_option',
      plugin: this.id,
      param: `${this.where}.${field}`,
    });
  }
}

/** `allowed_models` / `excluded_models` patterns: `*` matches any run of characters ("sim/*"). */
export function matchesPattern(modelId: string, pattern: string): boolean {
  const regex = new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
    'i',
  );
  return regex.test(modelId);
}
