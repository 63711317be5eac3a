import { PrismaPg } from '@prisma/adapter-pg';
import { validateEnv } from '@gw/config';
import type { Principal } from '@gw/contracts';
import { ResilientNatsConnection } from '@gw/messaging';
import { TEST_BYOK_KEKS, testDatabaseUrl } from '@gw/testing';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { generateKeyPairSync, randomUUID, sign, type KeyObject } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AuthService } from '../auth/auth.service.js';
import { ManagementEnv } from '../env.js';
import { PrismaClient } from '../generated/prisma/client.js';
import { createWorkspaceWithOwner, issueKey } from '../keys/key-issuer.js';
import { ManagementEventsPublisher } from '../messaging/management-events.publisher.js';
import type { PrismaService } from '../prisma/prisma.service.js';
import { IdentityService, PENDING_LOGINS_PER_USER } from './identity.service.js';
import { OidcClient } from './oidc-client.js';

/*
 * The ID token checks of the callback, against an issuer that answers whatever this test asks:
 * a token signed by a key it does not publish, for another audience, from another issuer,
 * expired, or with another nonce. A hostile issuer is the point here, so it is a small HTTP
 * server of the test's own; the login through a real provider is in the gateway's
 * identity.e2e-spec. Real PostgreSQL and NATS.
 */
const b64url = (value: object | Buffer) => (Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value))).toString('base64url');

class HostileIssuer {
  readonly published = generateKeyPairSync('rsa', { modulusLength: 2048 });
  readonly unpublished = generateKeyPairSync('rsa', { modulusLength: 2048 });
  private server!: Server;
  url = '';
  /** The next token endpoint answer's ID token: claims over the defaults, and the key to sign with. */
  next: { claims: Record<string, unknown>; key?: KeyObject } = { claims: {} };
  lastNonce = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const json = (body: unknown) => {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      if (request.url === '/.well-known/openid-configuration') {
        return json({
          issuer: this.url,
          authorization_endpoint: `${this.url}/auth`,
          token_endpoint: `${this.url}/token`,
          jwks_uri: `${this.url}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['S256'],
        });
      }
      if (request.url === '/jwks')
        return json({ keys: [{ ...this.published.publicKey.export({ format: 'jwk' }), kid: 'k1', use: 'sig', alg: 'RS256' }] });
      if (request.url === '/token' && request.method === 'POST') {
        request.resume();
        const now = Math.floor(Date.now() / 1000);
        const claims = {
          iss: this.url,
          sub: 'hostile-subject',
          aud: 'rp',
          iat: now,
          exp: now + 300,
          nonce: this.lastNonce,
          ...this.next.claims,
        };
        const signingInput = `${b64url({ alg: 'RS256', kid: 'k1', typ: 'JWT' })}.${b64url(claims)}`;
        const signature = sign('sha256', Buffer.from(signingInput), this.next.key ?? this.published.privateKey);
        return json({ access_token: 'at', token_type: 'Bearer', expires_in: 300, id_token: `${signingInput}.${b64url(signature)}` });
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('OIDC callback: the ID token is verified (signature, issuer, audience, expiry, nonce)', () => {
  const prisma = new PrismaClient({
    adapter: new PrismaPg({ connectionString: testDatabaseUrl(inject('databasePrefix'), 'management') }),
  }) as unknown as PrismaService;
  const issuer = new HostileIssuer();
  let nats: ResilientNatsConnection;
  let identity: IdentityService;
  let auth: AuthService;
  let principal: Principal;

  beforeAll(async () => {
    await issuer.start();
    const env = validateEnv(ManagementEnv, {
      DATABASE_URL: 'postgresql://unused',
      BYOK_KEKS: TEST_BYOK_KEKS,
      OIDC_ISSUER_URL: issuer.url,
      OIDC_CLIENT_ID: 'rp',
      OIDC_CLIENT_SECRET: 'rp-secret',
      OIDC_REDIRECT_URL: 'http://127.0.0.1:9/v1/identity/oidc/callback',
    });
    nats = await ResilientNatsConnection.open({ servers: inject('natsUrl'), name: 'identity-spec' });
    const client = new OidcClient(env);
    identity = new IdentityService(prisma, client, new ManagementEventsPublisher(nats));
    auth = new AuthService(prisma, client);
    const owner = await createWorkspaceWithOwner(prisma, {
      workspaceName: 'Identity',
      email: `identity-${randomUUID()}@example.com`,
      userName: 'I',
    });
    const key = await issueKey(prisma, owner, { kind: 'standard', name: 'identity' });
    principal = (await auth.resolve(key.key.hash)).principal!;
  });

  afterAll(async () => {
    await nats?.close();
    await issuer.close();
    await prisma.$disconnect();
  });

  /** Starts a login and comes back with the issuer's code, as a browser would. */
  async function callbackWith(next: HostileIssuer['next']) {
    const started = new URL((await identity.start(principal)).authorization_url);
    expect(started.searchParams.get('code_challenge_method')).toBe('S256');
    expect(started.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    issuer.lastNonce = started.searchParams.get('nonce')!;
    issuer.next = next;
    return identity.callback(new URLSearchParams({ code: 'c', state: started.searchParams.get('state')! }).toString());
  }

  it.each([
    ['signed by a key the issuer does not publish', { claims: {}, key: issuer.unpublished.privateKey }],
    ['for another audience', { claims: { aud: 'someone-else' } }],
    ['from another issuer', { claims: { iss: 'https://evil.example.com' } }],
    ['expired', { claims: { iat: Math.floor(Date.now() / 1000) - 7200, exp: Math.floor(Date.now() / 1000) - 3600 } }],
    ['with another nonce', { claims: { nonce: 'replayed-nonce' } }],
  ])('refuses an ID token %s, and links nothing', async (_what, next) => {
    await expect(callbackWith(next)).rejects.toMatchObject({ status: 400, metadata: { reason: 'id_token_rejected' } });
    expect((await identity.get(principal)).identity).toBeNull();
  });

  it('keeps at most PENDING_LOGINS_PER_USER logins in progress per user: the oldest go first', async () => {
    const states: string[] = [];
    for (let index = 0; index < PENDING_LOGINS_PER_USER + 3; index++) {
      states.push(new URL((await identity.start(principal)).authorization_url).searchParams.get('state')!);
    }
    const kept = await prisma.oidcLoginState.findMany({ where: { userId: principal.userId }, select: { state: true } });
    expect(kept).toHaveLength(PENDING_LOGINS_PER_USER);
    // (created_at has millisecond precision: only the first and the last are certainly apart.)
    expect(kept.map((row) => row.state)).toContain(states.at(-1));
    expect(kept.map((row) => row.state)).not.toContain(states[0]);
    // A dropped login's callback is refused like any unknown state.
    await expect(identity.callback(`code=c&state=${states[0]}`)).rejects.toMatchObject({
      status: 400,
      metadata: { reason: 'invalid_state' },
    });
  });

  it('links a valid one; the principal then carries the subject, only while that issuer is the configured one', async () => {
    const linked = await callbackWith({ claims: {} });
    expect(linked.identity).toMatchObject({ issuer: issuer.url, subject: 'hostile-subject', current_issuer: true });
    expect(linked.changedKeyHashes).toContain(principal.keyHash);
    expect((await auth.resolve(principal.keyHash)).principal).toMatchObject({
      hasPersonalIdentity: true,
      identitySubject: 'hostile-subject',
    });
    const otherIssuer = new OidcClient(
      validateEnv(ManagementEnv, {
        DATABASE_URL: 'postgresql://unused',
        BYOK_KEKS: TEST_BYOK_KEKS,
        OIDC_ISSUER_URL: 'https://accounts.example.com',
        OIDC_CLIENT_ID: 'rp',
        OIDC_CLIENT_SECRET: 'rp-secret',
        OIDC_REDIRECT_URL: 'https://llm.example.com/v1/identity/oidc/callback',
      }),
    );
    expect((await new AuthService(prisma, otherIssuer).resolve(principal.keyHash)).principal).toMatchObject({
      hasPersonalIdentity: false,
      identitySubject: null,
    });
  });
});
