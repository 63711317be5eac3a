import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { registerDecorator, type ValidationOptions } from 'class-validator';
import type { OkpJwk } from '@gw/daemon-verifier';

/** One Ed25519 key of the ring: the private half signs, the public half is published. */
export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  jwk: OkpJwk;
}

const KID = /^[A-Za-z0-9._-]{1,64}$/;
// PKCS#8 wrapping of a raw 32-byte Ed25519 seed (RFC 8410): a fixed 16-byte prefix.
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** A key from its 32-byte seed, the form `DAEMON_SIGNING_KEYS` carries (and what `openssl genpkey` wraps). */
export function signingKeyFromSeed(kid: string, seed: Uint8Array): SigningKey {
  if (!KID.test(kid)) throw new Error(`Key id "${kid}" must be 1-64 of A-Z a-z 0-9 . _ -`);
  if (seed.length !== 32) throw new Error(`Key "${kid}" must be 32 bytes of base64, got ${seed.length}`);
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const { x } = createPublicKey(privateKey).export({ format: 'jwk' });
  return { kid, privateKey, jwk: { kty: 'OKP', crv: 'Ed25519', x: x!, kid, use: 'sig' } };
}

/**
 * The keys of `DAEMON_SIGNING_KEYS`: `<kid>:<base64 32-byte seed>[,<kid>:<seed>...]`. The
 * first signs; the others are only published, so signatures made before a rotation still
 * verify while daemons refresh.
 */
export class SigningKeyRing {
  readonly current: SigningKey;
  readonly all: readonly SigningKey[];

  constructor(keys: SigningKey[]) {
    if (keys.length === 0) throw new Error('At least one signing key is required');
    const kids = new Set(keys.map((key) => key.kid));
    if (kids.size !== keys.length) throw new Error('Signing key ids must be unique');
    this.current = keys[0]!;
    this.all = keys;
  }

  static parse(value: string): SigningKeyRing {
    return new SigningKeyRing(
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean)
        .map((entry) => {
          const separator = entry.lastIndexOf(':');
          if (separator <= 0) throw new Error('Each signing key must be "<kid>:<base64 seed>"');
          return signingKeyFromSeed(entry.slice(0, separator), Buffer.from(entry.slice(separator + 1), 'base64'));
        }),
    );
  }

  /** `GET /v1/daemon/jwks.json`. */
  jwks(): { keys: OkpJwk[] } {
    return { keys: this.all.map((key) => key.jwk) };
  }
}

/** Env validation: the ring parses (the message says why not, never the key material). */
export function IsSigningKeyRing(options?: ValidationOptions) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isSigningKeyRing',
      target: target.constructor,
      propertyName,
      options: { message: `${propertyName} must be "<kid>:<base64 32-byte Ed25519 seed>" entries, comma-separated`, ...options },
      validator: {
        validate: (value: unknown) => {
          try {
            SigningKeyRing.parse(String(value));
            return typeof value === 'string';
          } catch {
            return false;
          }
        },
      },
    });
}
