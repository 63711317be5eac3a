import { createHash, createPrivateKey, randomBytes, sign } from 'node:crypto';
import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { DaemonVerifier } from './daemon-verifier.js';
import { invokeMessageV1, invokeMessageV2 } from './invoke-message.js';
import { JwksKeySource, StaticKeySource } from './jwks-key-source.js';

// The signing side as the gateway does it (node:crypto), written independently of the verifier.
const seed = randomBytes(32);
const privateKey = createPrivateKey({
  key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
  format: 'der',
  type: 'pkcs8',
});
const publicKey = nacl.sign.keyPair.fromSeed(seed).publicKey;
const internId = 'a1b2c3d4-0000-4000-8000-000000000001';
const now = 1_800_000_000_000;
const body = new TextEncoder().encode('{"task":"deploy"}');
const digest = createHash('sha256').update(body).digest('hex');

function signedHeaders(options: { timestamp?: number; intern?: string; route?: { method: string; path: string }; kid?: string } = {}) {
  const timestamp = String(options.timestamp ?? Math.floor(now / 1000));
  const fields = { internId: options.intern ?? internId, timestamp, user: 'sub-123', bodySha256: digest };
  const headers: Record<string, string> = {
    'x-ori-invoke-signature': sign(null, invokeMessageV1(fields), privateKey).toString('base64'),
    'x-ori-invoke-timestamp': timestamp,
    'x-ori-invoke-user': 'sub-123',
    'x-ori-invoke-key-id': options.kid ?? 'k1',
  };
  if (options.route) {
    const nonce = randomBytes(16).toString('base64url');
    headers['x-ori-invoke-nonce'] = nonce;
    headers['x-ori-invoke-signature-v2'] = sign(null, invokeMessageV2({ ...fields, nonce, ...options.route }), privateKey).toString(
      'base64',
    );
  }
  return headers;
}

const verifier = (overrides: Partial<ConstructorParameters<typeof DaemonVerifier>[0]> = {}) =>
  new DaemonVerifier({ internId, keys: new StaticKeySource({ k1: publicKey }), now: () => now, ...overrides });

describe('DaemonVerifier', () => {
  it('accepts a fresh v1 signature over this intern and these body bytes', async () => {
    const result = await verifier().verify({ headers: signedHeaders(), method: 'POST', path: '/run', body });
    expect(result).toEqual({ ok: true, user: 'sub-123', timestamp: Math.floor(now / 1000), keyId: 'k1', version: 1 });
  });

  it('refuses a tampered body, another intern, a stale or future timestamp, an unknown key id', async () => {
    const v = verifier();
    const tampered = new TextEncoder().encode('{"task":"destroy"}');
    expect(await v.verify({ headers: signedHeaders(), method: 'POST', path: '/run', body: tampered })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    expect(await v.verify({ headers: signedHeaders({ intern: 'other' }), method: 'POST', path: '/', body })).toEqual({
      ok: false,
      reason: 'bad_signature',
    });
    const stale = signedHeaders({ timestamp: Math.floor(now / 1000) - 301 });
    expect(await v.verify({ headers: stale, method: 'POST', path: '/', body })).toEqual({ ok: false, reason: 'stale_timestamp' });
    const future = signedHeaders({ timestamp: Math.floor(now / 1000) + 31 });
    expect(await v.verify({ headers: future, method: 'POST', path: '/', body })).toEqual({ ok: false, reason: 'future_timestamp' });
    const withinSkew = signedHeaders({ timestamp: Math.floor(now / 1000) + 30 });
    expect((await v.verify({ headers: withinSkew, method: 'POST', path: '/', body })).ok).toBe(true);
    expect(await v.verify({ headers: signedHeaders({ kid: 'k9' }), method: 'POST', path: '/', body })).toEqual({
      ok: false,
      reason: 'unknown_key',
    });
  });

  it('refuses a changed user or timestamp header, and missing or malformed headers', async () => {
    const v = verifier();
    expect(
      await v.verify({ headers: { ...signedHeaders(), 'x-ori-invoke-user': 'mallory' }, method: 'POST', path: '/', body }),
    ).toMatchObject({ reason: 'bad_signature' });
    const headers = signedHeaders();
    headers['x-ori-invoke-timestamp'] = String(Number(headers['x-ori-invoke-timestamp']) - 1);
    expect(await v.verify({ headers, method: 'POST', path: '/', body })).toMatchObject({ reason: 'bad_signature' });
    expect(await v.verify({ headers: {}, method: 'POST', path: '/', body })).toMatchObject({ reason: 'missing_signature' });
    expect(
      await v.verify({ headers: { ...signedHeaders(), 'x-ori-invoke-timestamp': '1e9' }, method: 'POST', path: '/', body }),
    ).toMatchObject({ reason: 'malformed_header' });
    expect(
      await v.verify({ headers: { ...signedHeaders(), 'x-ori-invoke-signature': 'abc' }, method: 'POST', path: '/', body }),
    ).toMatchObject({ reason: 'malformed_header' });
  });

  it('without a key id tries every published key', async () => {
    const { 'x-ori-invoke-key-id': _kid, ...headers } = signedHeaders();
    expect(await verifier().verify({ headers, method: 'POST', path: '/', body })).toMatchObject({ ok: true, keyId: 'k1' });
  });

  it('v2 binds method and path and accepts each nonce once', async () => {
    const v = verifier({ requireV2: true });
    const headers = signedHeaders({ route: { method: 'POST', path: '/v1/run?x=1' } });
    expect(await v.verify({ headers, method: 'POST', path: '/v1/run?x=1', body })).toMatchObject({ ok: true, version: 2 });
    expect(await v.verify({ headers, method: 'POST', path: '/v1/run?x=1', body })).toEqual({ ok: false, reason: 'replayed_nonce' });
    const other = signedHeaders({ route: { method: 'POST', path: '/v1/run' } });
    expect(await v.verify({ headers: other, method: 'DELETE', path: '/v1/run', body })).toEqual({ ok: false, reason: 'bad_signature' });
    expect(await v.verify({ headers: other, method: 'POST', path: '/v1/other', body })).toEqual({ ok: false, reason: 'bad_signature' });
    // A failed attempt does not burn the nonce.
    expect(await v.verify({ headers: other, method: 'post', path: '/v1/run', body })).toMatchObject({ ok: true, version: 2 });
    expect(await v.verify({ headers: signedHeaders(), method: 'POST', path: '/', body })).toEqual({ ok: false, reason: 'v2_required' });
  });

  it('JwksKeySource fetches the keys, refreshes on an unknown kid at most once per interval', async () => {
    let clock = 0;
    let fetches = 0;
    let published = [{ kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url'), kid: 'k1', use: 'sig' }];
    const source = new JwksKeySource({
      url: 'http://gateway/v1/daemon/jwks.json',
      minRefreshIntervalMs: 1_000,
      now: () => clock,
      fetch: (async () => {
        fetches += 1;
        return new Response(JSON.stringify({ keys: published }));
      }) as typeof fetch,
    });
    expect(await source.get('k1')).toEqual(publicKey);
    expect(await source.get('k2')).toBeUndefined();
    expect(fetches).toBe(1);
    published = [...published, { ...published[0]!, kid: 'k2' }];
    clock = 1_000;
    expect(await source.get('k2')).toEqual(publicKey);
    expect(fetches).toBe(2);
    expect(await source.get('k1')).toEqual(publicKey);
    expect(fetches).toBe(2);
  });
});
