import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { KeyRing } from './key-ring.js';

/*
 * Envelope encryption of secrets at rest: BYOK credentials in management, stored generation
 * content in inference (docs/adr: byok-envelope-encryption):
 * - the secret is sealed with AES-256-GCM under a random data key of its own;
 * - the data key is sealed with AES-256-GCM under the current key-encryption key (KEK);
 * - both seals carry additional authenticated data naming the credential (and, for the data
 *   key, the KEK version), so a ciphertext copied onto another row, or a `kek_version`
 *   edited in the database, fails authentication instead of decrypting.
 * Rotating the KEK re-wraps only the 32-byte data key; the secret's ciphertext never changes.
 */

/** Layout of both blobs: format byte || 12-byte IV || 16-byte GCM tag || ciphertext. */
const FORMAT_AES_256_GCM = 0x01;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;
const DATA_KEY_BYTES = 32;

/** What is stored (Prisma reads `bytea` as Uint8Array). */
export interface SealedSecret {
  encryptedSecret: Uint8Array<ArrayBuffer>;
  wrappedDataKey: Uint8Array<ArrayBuffer>;
  kekVersion: string;
}

/** Thrown when a blob is malformed, tampered with, or sealed under a KEK no longer configured. */
export class SecretUnavailableError extends Error {
  constructor(reason: string) {
    super(`Sealed secret cannot be decrypted: ${reason}`);
    this.name = 'SecretUnavailableError';
  }
}

/** What the ciphertexts are bound to: the credential's id and workspace. */
export function credentialContext(id: string, workspaceId: string): string {
  return `byok:${id}:${workspaceId}`;
}

export function sealSecret(ring: KeyRing, plaintext: string, context: string): SealedSecret {
  const dataKey = randomBytes(DATA_KEY_BYTES);
  try {
    return {
      encryptedSecret: gcmSeal(dataKey, Buffer.from(plaintext, 'utf8'), secretAad(context)),
      ...wrapDataKey(ring, dataKey, context),
    };
  } finally {
    dataKey.fill(0);
  }
}

export function openSecret(ring: KeyRing, sealed: SealedSecret, context: string): string {
  const dataKey = unwrapDataKey(ring, sealed, context);
  try {
    return gcmOpen(dataKey, sealed.encryptedSecret, secretAad(context)).toString('utf8');
  } finally {
    dataKey.fill(0);
  }
}

/** The same secret with its data key wrapped under the current KEK (KEK rotation). */
export function rewrapSecret(ring: KeyRing, sealed: SealedSecret, context: string): SealedSecret {
  const dataKey = unwrapDataKey(ring, sealed, context);
  try {
    return { encryptedSecret: sealed.encryptedSecret, ...wrapDataKey(ring, dataKey, context) };
  } finally {
    dataKey.fill(0);
  }
}

function wrapDataKey(ring: KeyRing, dataKey: Buffer, context: string): Omit<SealedSecret, 'encryptedSecret'> {
  const { version, key } = ring.current;
  return { wrappedDataKey: gcmSeal(key, dataKey, dataKeyAad(context, version)), kekVersion: version };
}

function unwrapDataKey(ring: KeyRing, sealed: SealedSecret, context: string): Buffer {
  const kek = ring.get(sealed.kekVersion);
  if (!kek) throw new SecretUnavailableError(`key-encryption key "${sealed.kekVersion}" is not configured`);
  const dataKey = gcmOpen(kek, sealed.wrappedDataKey, dataKeyAad(context, sealed.kekVersion));
  if (dataKey.length !== DATA_KEY_BYTES) throw new SecretUnavailableError('wrapped data key has the wrong length');
  return dataKey;
}

const secretAad = (context: string) => Buffer.from(`${context}:secret`, 'utf8');
const dataKeyAad = (context: string, kekVersion: string) => Buffer.from(`${context}:data-key:${kekVersion}`, 'utf8');

function gcmSeal(key: Buffer, plaintext: Buffer, aad: Buffer): Buffer<ArrayBuffer> {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([Buffer.of(FORMAT_AES_256_GCM), iv, cipher.getAuthTag(), ciphertext]);
}

function gcmOpen(key: Buffer, stored: Uint8Array, aad: Buffer): Buffer {
  const blob = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  if (blob.length < HEADER_BYTES || blob[0] !== FORMAT_AES_256_GCM) throw new SecretUnavailableError('unknown blob format');
  const iv = blob.subarray(1, 1 + IV_BYTES);
  const tag = blob.subarray(1 + IV_BYTES, HEADER_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(blob.subarray(HEADER_BYTES)), decipher.final()]);
  } catch {
    throw new SecretUnavailableError('authentication failed (wrong key, or the data was altered)');
  }
}
