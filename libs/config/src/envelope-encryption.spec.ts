import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  credentialContext,
  openSecret,
  rewrapSecret,
  sealSecret,
  SecretUnavailableError,
  type SealedSecret,
} from './envelope-encryption.js';
import { KeyRing, parseKeyEncryptionKeys } from './key-ring.js';

const kek = (version: string) => `${version}:${randomBytes(32).toString('base64')}`;
const SECRET = 'sk-proj-Recognisable-Secret-0123456789-AbCd';
const context = credentialContext('0b6f4c3e-9d0a-4a8e-8f49-1c2d3e4f5a6b', '11111111-1111-4111-8111-111111111111');

/** Flips one bit of a copy, at `index` from the end (the ciphertext) or the start. */
function flipped(blob: Uint8Array<ArrayBuffer>, index: number): Uint8Array<ArrayBuffer> {
  const copy = Uint8Array.from(blob);
  copy[index < 0 ? copy.length + index : index]! ^= 0x01;
  return copy;
}

describe('envelope encryption of BYOK secrets', () => {
  const v1 = kek('v1');
  const ring = KeyRing.fromEnv(v1);

  it('round-trips a secret, and never stores it in the clear', () => {
    const sealed = sealSecret(ring, SECRET, context);
    expect(sealed.kekVersion).toBe('v1');
    expect(openSecret(ring, sealed, context)).toBe(SECRET);
    for (const blob of [sealed.encryptedSecret, sealed.wrappedDataKey]) {
      expect(Buffer.from(blob).includes(Buffer.from(SECRET))).toBe(false);
      expect(Buffer.from(blob).includes(Buffer.from('Recognisable'))).toBe(false);
    }
    // 1 format byte + 12 IV + 16 tag + 32-byte data key.
    expect(sealed.wrappedDataKey.length).toBe(61);
  });

  it('uses a fresh data key and IV each time: the same secret seals differently', () => {
    const a = sealSecret(ring, SECRET, context);
    const b = sealSecret(ring, SECRET, context);
    expect(Buffer.from(a.encryptedSecret).equals(Buffer.from(b.encryptedSecret))).toBe(false);
    expect(Buffer.from(a.wrappedDataKey).equals(Buffer.from(b.wrappedDataKey))).toBe(false);
  });

  it('round-trips non-ASCII and multi-line secrets (a JSON service account)', () => {
    const json = JSON.stringify({ type: 'service_account', private_key: '-----BEGIN KEY-----\nabc\n-----END KEY-----\n', note: 'ключ ✓' });
    expect(openSecret(ring, sealSecret(ring, json, context), context)).toBe(json);
  });

  it.each([
    ['the secret ciphertext', (s: SealedSecret) => ({ ...s, encryptedSecret: flipped(s.encryptedSecret, -1) })],
    ['the secret GCM tag', (s: SealedSecret) => ({ ...s, encryptedSecret: flipped(s.encryptedSecret, 14) })],
    ['the secret IV', (s: SealedSecret) => ({ ...s, encryptedSecret: flipped(s.encryptedSecret, 2) })],
    ['the wrapped data key', (s: SealedSecret) => ({ ...s, wrappedDataKey: flipped(s.wrappedDataKey, -1) })],
    ['the format byte', (s: SealedSecret) => ({ ...s, wrappedDataKey: flipped(s.wrappedDataKey, 0) })],
    ['a truncated blob', (s: SealedSecret) => ({ ...s, encryptedSecret: s.encryptedSecret.slice(0, 20) })],
  ])('detects tampering with %s', (_what, tamper) => {
    const sealed = sealSecret(ring, SECRET, context);
    expect(() => openSecret(ring, tamper(sealed), context)).toThrow(SecretUnavailableError);
  });

  it('refuses a ciphertext copied onto another credential (bound to id and workspace)', () => {
    const sealed = sealSecret(ring, SECRET, context);
    const otherRow = credentialContext('7e57c0de-0000-4000-8000-000000000001', '11111111-1111-4111-8111-111111111111');
    expect(() => openSecret(ring, sealed, otherRow)).toThrow(SecretUnavailableError);
    const otherWorkspace = credentialContext('0b6f4c3e-9d0a-4a8e-8f49-1c2d3e4f5a6b', '22222222-2222-4222-8222-222222222222');
    expect(() => openSecret(ring, sealed, otherWorkspace)).toThrow(SecretUnavailableError);
  });

  it('refuses the wrong key-encryption key, and a kek_version edited to name another key', () => {
    const sealed = sealSecret(ring, SECRET, context);
    expect(() => openSecret(KeyRing.fromEnv(`v1:${randomBytes(32).toString('base64')}`), sealed, context)).toThrow(SecretUnavailableError);
    const twoKeys = KeyRing.fromEnv(`${kek('v2')},${v1}`);
    expect(() => openSecret(twoKeys, { ...sealed, kekVersion: 'v2' }, context)).toThrow(SecretUnavailableError);
  });

  it('says which KEK is missing when it was removed from the environment', () => {
    const sealed = sealSecret(ring, SECRET, context);
    expect(() => openSecret(KeyRing.fromEnv(kek('v2')), sealed, context)).toThrow(/"v1" is not configured/);
  });

  describe('rotation', () => {
    it('reads a credential written under v1 after v2 becomes current, and re-wraps it under v2', () => {
      const underV1 = sealSecret(ring, SECRET, context);
      const v2 = kek('v2');
      const rotated = KeyRing.fromEnv(`${v2},${v1}`);
      expect(rotated.current.version).toBe('v2');
      expect(openSecret(rotated, underV1, context)).toBe(SECRET);

      const rewrapped = rewrapSecret(rotated, underV1, context);
      expect(rewrapped.kekVersion).toBe('v2');
      // Only the data key is re-wrapped; the secret's ciphertext is untouched.
      expect(Buffer.from(rewrapped.encryptedSecret).equals(Buffer.from(underV1.encryptedSecret))).toBe(true);
      // Once re-wrapped, v1 can leave the environment; before, it could not.
      const v2Only = KeyRing.fromEnv(v2);
      expect(openSecret(v2Only, rewrapped, context)).toBe(SECRET);
      expect(() => openSecret(v2Only, underV1, context)).toThrow(SecretUnavailableError);
    });

    it('new credentials are sealed under the first (current) KEK', () => {
      const rotated = KeyRing.fromEnv(`${kek('v2')},${v1}`);
      expect(sealSecret(rotated, SECRET, context).kekVersion).toBe('v2');
    });
  });
});

describe('BYOK_KEKS parsing', () => {
  it('reads versions in order, the first being current', () => {
    const keks = parseKeyEncryptionKeys(` v2:${randomBytes(32).toString('base64')} , v1:${randomBytes(32).toString('base64')}`);
    expect(keks.map((entry) => entry.version)).toEqual(['v2', 'v1']);
    expect(keks.every((entry) => entry.key.length === 32)).toBe(true);
  });

  const bytes31 = randomBytes(31).toString('base64');
  it.each([
    ['missing', undefined, /is required/],
    ['blank', '  ', /is required/],
    ['without a version', randomBytes(32).toString('base64'), /entry 1/],
    ['with a bad version', `v 1:${randomBytes(32).toString('base64')}`, /entry 1/],
    ['too short', `v1:${bytes31}`, /exactly 32/],
    ['not base64', `v1:${'*'.repeat(44)}`, /exactly 32/],
    ['a version twice', `v1:${randomBytes(32).toString('base64')},v1:${randomBytes(32).toString('base64')}`, /twice/],
  ])('refuses a value %s, without echoing it', (_what, value, message) => {
    let thrown: Error | undefined;
    try {
      parseKeyEncryptionKeys(value);
    } catch (error) {
      thrown = error as Error;
    }
    expect(thrown?.message).toMatch(message);
    if (value && value.trim()) expect(thrown?.message).not.toContain(value.split(':').pop()!.trim());
  });
});
