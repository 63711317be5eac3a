import { createHash, randomBytes } from 'node:crypto';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { DaemonSigner } from './daemon-signer.js';
import { SigningKeyRing, signingKeyFromSeed } from './signing-key-ring.js';

const seed = Buffer.alloc(32, 9);
const ring = new SigningKeyRing([signingKeyFromSeed('k2', seed), signingKeyFromSeed('k1', Buffer.alloc(32, 1))]);
const at = Date.UTC(2026, 10, 23, 1, 2, 3);
const signer = new DaemonSigner(ring, () => at + 999);
const internId = '0b6f0f43-0c1e-4d8e-9c55-2f4a1d7b9e10';
const bodySha256 = createHash('sha256').update('{"hello":"daemon"}').digest('hex');

describe('DaemonSigner', () => {
  it('signs exactly ori-invoke-v1\\n<internId>\\n<timestamp>\\n<user>\\n<bodySha256>, and tweetnacl gives the same bytes', () => {
    const headers = signer.sign({ internId, user: 'alice-sub', bodySha256 });
    expect(headers['x-ori-invoke-timestamp']).toBe(String(Math.floor(at / 1000)));
    expect(headers['x-ori-invoke-user']).toBe('alice-sub');
    expect(headers['x-ori-invoke-key-id']).toBe('k2');
    expect(headers['x-ori-invoke-signature']).toMatch(/^[A-Za-z0-9+/]{86}==$/);
    expect(headers).not.toHaveProperty('x-ori-invoke-nonce');

    // The message written out by hand, not by the function under test.
    const message = new TextEncoder().encode(`ori-invoke-v1\n${internId}\n${Math.floor(at / 1000)}\nalice-sub\n${bodySha256}`);
    const pair = nacl.sign.keyPair.fromSeed(seed);
    expect(Buffer.from(nacl.sign.detached(message, pair.secretKey)).toString('base64')).toBe(headers['x-ori-invoke-signature']);
    expect(nacl.sign.detached.verify(message, Buffer.from(headers['x-ori-invoke-signature'], 'base64'), pair.publicKey)).toBe(true);
  });

  it('publishes the public key tweetnacl derives from the same seed, in RFC 8037 form, current key first', () => {
    const jwks = ring.jwks();
    expect(jwks.keys.map((key) => key.kid)).toEqual(['k2', 'k1']);
    expect(jwks.keys[0]).toEqual({ kty: 'OKP', crv: 'Ed25519', x: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), kid: 'k2', use: 'sig' });
    expect(Buffer.from(jwks.keys[0]!.x, 'base64url').equals(Buffer.from(nacl.sign.keyPair.fromSeed(seed).publicKey))).toBe(true);
  });

  it('with a route adds a 128-bit base64url nonce and a v2 signature over method, path and nonce', () => {
    const headers = signer.sign({ internId, user: 'alice-sub', bodySha256, route: { method: 'POST', path: '/v1/run?x=1' } });
    const nonce = headers['x-ori-invoke-nonce']!;
    expect(Buffer.from(nonce, 'base64url')).toHaveLength(16);
    const message = new TextEncoder().encode(
      `ori-invoke-v2\n${internId}\n${headers['x-ori-invoke-timestamp']}\n${nonce}\nalice-sub\nPOST\n/v1/run?x=1\n${bodySha256}`,
    );
    const publicKey = nacl.sign.keyPair.fromSeed(seed).publicKey;
    expect(nacl.sign.detached.verify(message, Buffer.from(headers['x-ori-invoke-signature-v2']!, 'base64'), publicKey)).toBe(true);
    expect(signer.sign({ internId, user: 'alice-sub', bodySha256, route: { method: 'POST', path: '/' } })['x-ori-invoke-nonce']).not.toBe(
      nonce,
    );
  });

  it('parses DAEMON_SIGNING_KEYS and refuses what would not sign', () => {
    const parsed = SigningKeyRing.parse(`new:${randomBytes(32).toString('base64')}, old:${seed.toString('base64')}`);
    expect(parsed.current.kid).toBe('new');
    expect(parsed.all.map((key) => key.kid)).toEqual(['new', 'old']);
    expect(() => SigningKeyRing.parse('')).toThrow(/At least one/);
    expect(() => SigningKeyRing.parse(`a:${Buffer.alloc(16).toString('base64')}`)).toThrow(/32 bytes/);
    expect(() => SigningKeyRing.parse(`a:${seed.toString('base64')},a:${seed.toString('base64')}`)).toThrow(/unique/);
    expect(() => SigningKeyRing.parse(seed.toString('base64'))).toThrow();
  });
});
