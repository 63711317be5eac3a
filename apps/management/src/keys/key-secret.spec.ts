import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateKeySecret, hashKeySecret, KEY_PREFIX, maskKeySecret } from './key-secret.js';

describe('key secrets', () => {
  it('stores sha256 as 64 lower-case hex of the exact secret', () => {
    const { secret, hash } = generateKeySecret();
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(hash).toBe(createHash('sha256').update(secret).digest('hex'));
    expect(hashKeySecret(secret + ' ')).not.toBe(hash);
  });

  it('generates distinct, prefixed secrets with 256 bits of randomness', () => {
    const a = generateKeySecret();
    const b = generateKeySecret();
    expect(a.secret).not.toBe(b.secret);
    expect(a.secret.startsWith(KEY_PREFIX)).toBe(true);
    expect(a.secret.length).toBe(KEY_PREFIX.length + 64);
  });

  it('masks all but a few characters', () => {
    const secret = `${KEY_PREFIX}abcdef0123456789abcdef0123456789`;
    const label = maskKeySecret(secret);
    expect(label).toBe(`${KEY_PREFIX}abc...6789`);
    expect(label).not.toContain('def0123');
  });
});
