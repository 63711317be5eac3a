import { OpenRouter } from '@openrouter/sdk';
import { DaemonVerifier, JwksKeySource } from '@gw/daemon-verifier';
import { linkIdentity } from '@gw/oidc-provider/headless-login';
import { startReferenceDaemon, type RunningDaemon } from '@gw/reference-daemon';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { request } from 'node:http';
import nacl from 'tweetnacl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { E2E_SIGN_RATE_LIMIT } from '@gw/stack';
import { call, envelopeOf, stack } from './e2e-helpers.js';

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');
type SignHeaders = Record<string, string>;

/** A raw HTTP exchange through node:http: a Host of our choosing, a body written in parts or not at all. */
function rawRequest(
  path: string,
  options: { headers: Record<string, string | number>; chunks?: Buffer[]; end?: boolean },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(new URL(`${stack.baseUrl}${path}`), { method: 'POST', headers: options.headers });
    outgoing.on('response', (response) => {
      let text = '';
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode!, headers: response.headers, body: text ? JSON.parse(text) : undefined }),
      );
    });
    outgoing.on('error', reject);
    for (const chunk of options.chunks ?? []) outgoing.write(chunk);
    if (options.end !== false) outgoing.end();
  });
}

/** A management key of a second workspace, made by management's CLI. */
/** A management key of a new workspace, owned by a new user (keys:create). */
function otherWorkspaceKey(): { secret: string; userId: string } {
  return JSON.parse(
    execFileSync(process.execPath, ['apps/management/dist/cli/create-key.js', '--json', '--management', '--name', 'other workspace'], {
      env: { ...process.env, MANAGEMENT_DATABASE_URL: stack.managementDatabaseUrl },
      encoding: 'utf8',
    }),
  );
}

describe('interns and signed daemon access, end to end', () => {
  const sdk = new OpenRouter({ apiKey: stack.apiKey, serverURL: stack.baseUrl });
  let internId: string;
  let otherInternId: string;
  let signingKey: string;
  let internKey: string;
  let daemon: RunningDaemon;
  const sign = (body: unknown, options: { key?: string; intern?: string; alias?: boolean } = {}) =>
    call(`/interns/${options.intern ?? internId}/${options.alias ? 'daemon-access' : 'daemon'}/sign`, {
      key: options.key ?? signingKey,
      body,
    });

  beforeAll(async () => {
    const intern = await sdk.interns.createIntern({ createInternRequest: { name: 'e2e-scout', description: 'signs things' } });
    internId = intern.id;
    otherInternId = (await sdk.interns.createIntern({ createInternRequest: { name: 'e2e-other' } })).id;
    // Before a personal identity is linked, the demo user cannot sign.
    const refused = await sign({ bodySha256: sha256('x') }, { key: stack.apiKey });
    expect(refused.status).toBe(403);
    expect(envelopeOf(refused).metadata).toMatchObject({ reason: 'personal_identity_required', retryable: false });
    // The demo user logs in at the run's OIDC provider (the real flow, driven over HTTP, as npm run up does).
    await linkIdentity({ baseUrl: stack.baseUrl, apiKey: stack.apiKey, login: 'demo', password: 'demo-password' });
    const created = await call('/keys', { key: stack.managementKey, body: { name: 'e2e signer' } });
    signingKey = (created.body as { key: string }).key;
    const internKeyReply = await call('/keys', { key: stack.managementKey, body: { name: 'e2e intern key', intern_id: internId } });
    expect(internKeyReply.status).toBe(201);
    internKey = (internKeyReply.body as { key: string }).key;
    daemon = await startReferenceDaemon({ internId, jwksUrl: `${stack.baseUrl}/daemon/jwks.json` });
  });

  afterAll(async () => {
    await daemon?.close();
  });

  it('lists, reads and updates interns through @openrouter/sdk', async () => {
    const page = await sdk.interns.listInterns({ limit: 1 });
    expect(page.data).toHaveLength(1);
    expect(page.hasMore).toBe(true);
    const next = await sdk.interns.listInterns({ limit: 500, startingAfter: page.nextCursor });
    expect([...page.data, ...next.data].map((intern) => intern.id)).toEqual(expect.arrayContaining([internId, otherInternId]));
    expect(await sdk.interns.getIntern({ internId })).toMatchObject({ id: internId, name: 'e2e-scout', status: 'stopped', progress: null });
    const updated = await sdk.interns.updateIntern({
      internId,
      updateInternRequest: { model: 'openai/gpt-4o-mini', instructions: 'Be careful.' },
    });
    expect(updated).toMatchObject({ model: 'openai/gpt-4o-mini', instructions: 'Be careful.', description: 'signs things' });
    expect((await call('/interns?limit=501')).status).toBe(400);
    expect((await call('/interns?limit=0')).status).toBe(400);
    expect((await call('/interns', { body: { name: 'p', provision: true } })).status).toBe(400);
  });

  it('signs: the headers verify against the published JWKS and the message format, byte for byte', async () => {
    const bodySha256 = sha256('{"prompt":"hi"}');
    const result = await sign({ bodySha256 });
    expect(result.status).toBe(200);
    const headers = result.body as SignHeaders;
    expect(Object.keys(headers).sort()).toEqual([
      'x-ori-invoke-key-id',
      'x-ori-invoke-signature',
      'x-ori-invoke-timestamp',
      'x-ori-invoke-user',
    ]);
    expect(headers['x-ori-invoke-user']).toBe('demo-user');
    expect(Math.abs(Number(headers['x-ori-invoke-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
    const jwks = (await call('/daemon/jwks.json', { key: null })).body as {
      keys: Array<{ kid: string; x: string; kty: string; crv: string; use: string }>;
    };
    const jwk = jwks.keys.find((key) => key.kid === headers['x-ori-invoke-key-id'])!;
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', use: 'sig' });
    const message = new TextEncoder().encode(`ori-invoke-v1\n${internId}\n${headers['x-ori-invoke-timestamp']}\ndemo-user\n${bodySha256}`);
    expect(
      nacl.sign.detached.verify(message, Buffer.from(headers['x-ori-invoke-signature']!, 'base64'), Buffer.from(jwk.x, 'base64url')),
    ).toBe(true);
  });

  it('the deprecated alias signs the same way and says it is deprecated (RFC 9745, RFC 8288)', async () => {
    const result = await sign({ bodySha256: sha256('a') }, { alias: true });
    expect(result.status).toBe(200);
    expect(result.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(result.headers.get('link')).toBe(`</v1/interns/${internId}/daemon/sign>; rel="successor-version"`);
  });

  it('a daemon accepts the signed request and refuses tampering, another intern, staleness, replay and unknown keys', async () => {
    const body = Buffer.from('{"command":"status"}');
    const headers = (await sign({ bodySha256: sha256(body) })).body as SignHeaders;
    const toDaemon = (path: string, sent: Buffer, extra: Record<string, string>, method = 'POST') =>
      fetch(`${daemon.url}${path}`, { method, headers: { 'content-type': 'application/json', ...extra }, body: sent }).then(
        async (response) => ({ status: response.status, body: await response.json() }),
      );
    expect(await toDaemon('/run', body, headers)).toEqual({
      status: 200,
      body: expect.objectContaining({ ok: true, user: 'demo-user', version: 1 }),
    });
    expect(await toDaemon('/run', Buffer.from('{"command":"rm -rf"}'), headers)).toEqual({
      status: 401,
      body: { ok: false, reason: 'bad_signature' },
    });
    expect(await toDaemon('/run', body, { ...headers, 'x-ori-invoke-key-id': 'no-such-key' })).toEqual({
      status: 401,
      body: { ok: false, reason: 'unknown_key' },
    });

    const forOther = (await sign({ bodySha256: sha256(body) }, { intern: otherInternId })).body as SignHeaders;
    expect(await toDaemon('/run', body, forOther)).toEqual({ status: 401, body: { ok: false, reason: 'bad_signature' } });

    const later = new DaemonVerifier({
      internId,
      keys: new JwksKeySource({ url: `${stack.baseUrl}/daemon/jwks.json` }),
      now: () => Date.now() + 301_000,
    });
    expect(await later.verify({ headers, method: 'POST', path: '/run', body })).toEqual({ ok: false, reason: 'stale_timestamp' });

    const v2 = (await sign({ bodySha256: sha256(body), route: { method: 'POST', path: '/v2/run?x=1' } })).body as SignHeaders;
    expect(v2['x-ori-invoke-nonce']).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(await toDaemon('/v2/run?x=1', body, v2)).toEqual({ status: 200, body: expect.objectContaining({ ok: true, version: 2 }) });
    expect(await toDaemon('/v2/run?x=1', body, v2)).toEqual({ status: 401, body: { ok: false, reason: 'replayed_nonce' } });
    const v2b = (await sign({ bodySha256: sha256(body), route: { method: 'POST', path: '/v2/run' } })).body as SignHeaders;
    expect(await toDaemon('/v2/elsewhere', body, v2b)).toEqual({ status: 401, body: { ok: false, reason: 'bad_signature' } });
  });

  it('answers every error of spec §7.2 with reason and retryable', async () => {
    const expectError = (result: { status: number; body: unknown }, status: number, reason: string, retryable = false) => {
      expect(result.status).toBe(status);
      expect(envelopeOf(result).metadata).toMatchObject({ reason, retryable });
    };
    expectError(
      await call(`/interns/${internId}/daemon/sign`, {
        key: signingKey,
        rawBody: '{not json',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid_body',
    );
    expectError(await sign({}), 400, 'invalid_body');
    expectError(await sign({ bodySha256: 'ABC' }), 400, 'invalid_body');
    expectError(await sign({ bodySha256: sha256('x').toUpperCase() }), 400, 'invalid_body');
    expectError(await sign({ bodySha256: sha256('x') }, { key: 'sk-not-a-key' }), 401, 'unauthorized');
    expectError(await call(`/interns/${internId}/daemon/sign`, { key: null, body: { bodySha256: sha256('x') } }), 401, 'unauthorized');
    expectError(await sign({ bodySha256: sha256('x') }, { intern: '00000000-0000-4000-8000-000000000000' }), 404, 'not_found');
    expectError(await sign({ bodySha256: sha256('x') }, { intern: 'not-a-uuid' }), 404, 'not_found');
    expectError(
      await call(`/interns/${internId}/daemon/sign`, { key: signingKey, rawBody: 'x', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );

    const big = await rawRequest(`/interns/${internId}/daemon/sign`, {
      headers: { authorization: `Bearer ${signingKey}`, 'content-type': 'application/json', 'content-length': 1_048_577 },
      chunks: [Buffer.alloc(1024, 32)],
      end: false,
    });
    expect(big.status).toBe(413);
    expect(big.body.error.metadata).toMatchObject({ reason: 'payload_too_large', retryable: false });
    // Chunked, with no Content-Length: refused while reading.
    const streamed = await rawRequest(`/interns/${internId}/daemon/sign`, {
      headers: { authorization: `Bearer ${signingKey}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      chunks: Array.from({ length: 20 }, () => Buffer.alloc(64 * 1024, 32)),
      end: false,
    });
    expect(streamed.status).toBe(413);

    const regional = await rawRequest(`/interns/${internId}/daemon/sign`, {
      headers: { host: 'eu.gateway.example', authorization: `Bearer ${signingKey}`, 'content-type': 'application/json' },
      chunks: [Buffer.from(JSON.stringify({ bodySha256: sha256('x') }))],
    });
    expect(regional.status).toBe(421);
    expect(regional.body.error).toMatchObject({ code: 421, metadata: { reason: 'regional_host', retryable: false } });
  });

  it('408 timeout when the operation does not finish in 10 s (a body that never arrives)', async () => {
    const started = Date.now();
    const stalled = await rawRequest(`/interns/${internId}/daemon/sign`, {
      headers: { authorization: `Bearer ${signingKey}`, 'content-type': 'application/json', 'content-length': 200 },
      chunks: [Buffer.from('{"bodySha256":')],
      end: false,
    });
    expect(stalled.status).toBe(408);
    expect(stalled.body.error.metadata).toMatchObject({ reason: 'timeout', retryable: true });
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_900);
  }, 20_000);

  it('429 rate_limited with Retry-After once an intern has used its turns for the window (per intern)', async () => {
    const busy = await sdk.interns.createIntern({ createInternRequest: { name: 'e2e-busy' } });
    const statuses: number[] = [];
    for (let turn = 0; turn < E2E_SIGN_RATE_LIMIT; turn += 1)
      statuses.push((await sign({ bodySha256: sha256(String(turn)) }, { intern: busy.id })).status);
    expect(statuses.every((status) => status === 200)).toBe(true);
    const limited = await sign({ bodySha256: sha256('one more') }, { intern: busy.id });
    expect(limited.status).toBe(429);
    expect(envelopeOf(limited).metadata).toMatchObject({ reason: 'rate_limited', retryable: true });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another intern's turns are its own.
    expect((await sign({ bodySha256: sha256('other') }, { intern: otherInternId })).status).toBe(200);
  });

  it("an intern's own key sees that intern only; another workspace sees none", async () => {
    expect((await call(`/interns/${internId}`, { key: internKey })).status).toBe(200);
    expect(envelopeOf(await call('/interns', { key: internKey })).metadata).toMatchObject({ reason: 'not_found' });
    expect((await call(`/interns/${otherInternId}`, { key: internKey })).status).toBe(404);
    expect((await call(`/interns/${otherInternId}/daemon/sign`, { key: internKey, body: { bodySha256: sha256('x') } })).status).toBe(404);
    // The intern key's user is the demo user, linked above: it signs for its own intern.
    const own = await call(`/interns/${internId}/daemon/sign`, { key: internKey, body: { bodySha256: sha256('x') } });
    expect(own.status).toBe(200);

    const other = otherWorkspaceKey();
    // Its user may sign too (a linked identity of its own), so only the workspace keeps it out.
    await linkIdentity({ baseUrl: stack.baseUrl, apiKey: other.secret, login: 'carol', password: 'carol-password' });
    expect((await call(`/interns/${internId}`, { key: other.secret })).status).toBe(404);
    expect((await call(`/interns/${internId}/daemon/sign`, { key: other.secret, body: { bodySha256: sha256('x') } })).status).toBe(404);
    expect(((await call('/interns', { key: other.secret })).body as { data: unknown[] }).data).toEqual([]);
    expect((await call(`/interns?workspace_id=${stack.workspaceId}`, { key: other.secret })).status).toBe(404);
  });

  it('deleting an intern answers 202 {deleting: true}, revokes its keys, and it is gone', async () => {
    const doomed = await sdk.interns.createIntern({ createInternRequest: { name: 'e2e-doomed' } });
    const key = (
      (await call('/keys', { key: stack.managementKey, body: { name: 'doomed key', intern_id: doomed.id } })).body as { key: string }
    ).key;
    expect((await call(`/interns/${doomed.id}`, { key })).status).toBe(200);
    expect(await sdk.interns.deleteIntern({ internId: doomed.id, deleteInternRequest: {} })).toEqual({ deleting: true });
    expect((await call(`/interns/${doomed.id}`)).status).toBe(404);
    await expect.poll(async () => (await call(`/interns/${doomed.id}`, { key })).status).toBe(401);
  });
});
