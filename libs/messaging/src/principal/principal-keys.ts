import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';

/*
 * The gateway's Ed25519 key for principals on the bus: the 32-byte seed signs (the gateway's
 * secret, BUS_PRINCIPAL_SIGNING_KEY), the 32-byte public key verifies (every service's
 * BUS_PRINCIPAL_PUBLIC_KEYS, not secret). Both as base64, the form DAEMON_SIGNING_KEYS uses.
 */

// RFC 8410 wrappings of the raw 32 bytes: fixed prefixes.
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export interface PrincipalKeyPair {
  /** base64 of the 32-byte seed: BUS_PRINCIPAL_SIGNING_KEY. */
  signingKey: string;
  /** base64 of the 32-byte public key: BUS_PRINCIPAL_PUBLIC_KEYS. */
  publicKey: string;
}

/** A fresh pair (`npm run up`, a test stack, `nats-config.ts credentials`). */
export function generatePrincipalKeyPair(): PrincipalKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_PREFIX.length);
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(SPKI_PREFIX.length);
  return { signingKey: seed.toString('base64'), publicKey: raw.toString('base64') };
}

/** The signing key from its base64 seed; throws on anything but 32 bytes. */
export function principalSigningKey(base64Seed: string): KeyObject {
  const seed = Buffer.from(base64Seed.trim(), 'base64');
  if (seed.length !== 32) throw new Error(`The principal signing key must be 32 bytes of base64, got ${seed.length}`);
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}

/** The verifying keys from a comma-separated list (more than one while the signing key rotates). */
export function principalPublicKeys(list: string): KeyObject[] {
  return list
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const raw = Buffer.from(entry, 'base64');
      if (raw.length !== 32) throw new Error(`Each principal public key must be 32 bytes of base64, got ${raw.length}`);
      return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
    });
}
