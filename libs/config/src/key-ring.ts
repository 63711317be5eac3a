import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

/**
 * The key-encryption keys (KEKs) that wrap data keys, from `BYOK_KEKS` (management) or
 * `CONTENT_KEKS` (inference):
 * `v2:<base64 of 32 bytes>,v1:<base64 of 32 bytes>`. The first entry is current (new and
 * re-wrapped credentials use it); the others stay to unwrap credentials written under them
 * until `byok:rewrap` has moved everything to the current one.
 */

export interface KeyEncryptionKey {
  version: string;
  key: Buffer;
}

export const KEK_VERSION_PATTERN = /^[A-Za-z0-9_.-]{1,32}$/;
const KEK_BYTES = 32;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * Parses `BYOK_KEKS`. The error names what is wrong with which entry, never a key's bytes,
 * so it can be printed at start.
 */
export function parseKeyEncryptionKeys(value: string | undefined): KeyEncryptionKey[] {
  if (typeof value !== 'string' || value.trim() === '')
    throw new Error('is required: "<version>:<base64 of 32 bytes>[,...]", the first is current');
  const keks: KeyEncryptionKey[] = [];
  for (const [index, entry] of value.split(',').entries()) {
    const separator = entry.indexOf(':');
    const version = entry.slice(0, Math.max(separator, 0)).trim();
    const encoded = entry.slice(separator + 1).trim();
    if (separator < 0 || !KEK_VERSION_PATTERN.test(version)) {
      throw new Error(`entry ${index + 1} must be "<version>:<base64>" with a version of 1-32 letters, digits, "_", "." or "-"`);
    }
    const key = Buffer.from(encoded, 'base64');
    if (!BASE64.test(encoded) || key.length !== KEK_BYTES) {
      throw new Error(`key "${version}" must be the base64 of exactly ${KEK_BYTES} random bytes (openssl rand -base64 32)`);
    }
    if (keks.some((kek) => kek.version === version)) throw new Error(`version "${version}" appears twice`);
    keks.push({ version, key });
  }
  return keks;
}

export class KeyRing {
  private readonly byVersion: Map<string, Buffer>;
  readonly current: KeyEncryptionKey;

  constructor(keks: KeyEncryptionKey[]) {
    if (keks.length === 0) throw new Error('A key ring needs at least one key-encryption key');
    this.current = keks[0]!;
    this.byVersion = new Map(keks.map((kek) => [kek.version, kek.key]));
  }

  static fromEnv(value: string | undefined): KeyRing {
    return new KeyRing(parseKeyEncryptionKeys(value));
  }

  /** The KEK of that version, or undefined when it was removed from the environment. */
  get(version: string): Buffer | undefined {
    return this.byVersion.get(version);
  }

  get versions(): string[] {
    return [...this.byVersion.keys()];
  }
}

/** class-validator check for the environment: a KEK list must parse (fail fast at start). */
export function IsKeyEncryptionKeys(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isKeyEncryptionKeys',
      target: target.constructor,
      propertyName,
      options,
      validator: {
        validate: (value: unknown) => kekProblem(value) === undefined,
        defaultMessage: (args?: ValidationArguments) => kekProblem(args?.value) ?? 'is invalid',
      },
    });
}

function kekProblem(value: unknown): string | undefined {
  try {
    parseKeyEncryptionKeys(typeof value === 'string' ? value : undefined);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
