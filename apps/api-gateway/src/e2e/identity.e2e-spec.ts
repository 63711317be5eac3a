import { headlessLogin, linkIdentity } from '@gw/oidc-provider/headless-login';
import { execFileSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/*
 * Personal identity by OIDC login, end to end: the gateway, management and the
 * local OIDC provider (tools/oidc-provider) of the run, the login driven over HTTP through the
 * provider's login and consent pages. Users of their own (a new workspace each), so the demo
 * user other files rely on is left alone.
 */
const sha256 = (data: string) => createHash('sha256').update(data).digest('hex');
const callbackPrefix = `${stack.baseUrl}/identity/oidc/callback`;

interface NewUser {
  managementKey: string;
  standardKey: string;
}

function newUser(name: string): NewUser {
  const cli = (args: string[]) =>
    JSON.parse(
      execFileSync(process.execPath, ['apps/management/dist/cli/create-key.js', '--json', ...args], {
        env: { ...process.env, MANAGEMENT_DATABASE_URL: stack.managementDatabaseUrl },
        encoding: 'utf8',
      }),
    ) as { secret: string; workspaceId: string; userId: string };
  // A user of its own (the CLI's default email is the demo user's).
  const management = cli(['--management', '--name', `${name} management`, '--email', `identity-${randomUUID()}@example.com`]);
  const standard = cli(['--standard', '--name', `${name} standard`, '--workspace', management.workspaceId, '--user', management.userId]);
  return { managementKey: management.secret, standardKey: standard.secret };
}

async function startLogin(key: string): Promise<string> {
  const started = await call('/identity/oidc/start', { key, method: 'POST' });
  expect(started.status).toBe(200);
  const data = (started.body as { data: { authorization_url: string; expires_in: number } }).data;
  expect(data.expires_in).toBeGreaterThan(0);
  return data.authorization_url;
}

/** The callback URL the provider sends the browser to, not yet called. */
async function callbackUrlFor(key: string, account = { login: 'bob', password: 'bob-password' }): Promise<string> {
  const result = await headlessLogin({ authorizationUrl: await startLogin(key), ...account, stopAt: callbackPrefix });
  return result.url;
}

async function getPage(url: string): Promise<{ status: number; text: string; type: string | null }> {
  const response = await fetch(url);
  return { status: response.status, text: await response.text(), type: response.headers.get('content-type') };
}

describe('personal identity by OIDC login, end to end', () => {
  const database = new pg.Client({ connectionString: stack.managementDatabaseUrl });
  let user: NewUser;
  let internId: string;
  let internKey: string;
  const sign = (key: string, headers: Record<string, string> = {}) =>
    call(`/interns/${internId}/daemon/sign`, { key, body: { bodySha256: sha256('{}') }, headers });

  beforeAll(async () => {
    await database.connect();
    user = newUser('identity e2e');
    const intern = await call('/interns', { key: user.standardKey, body: { name: 'identity-e2e' } });
    expect(intern.status).toBe(201);
    internId = (intern.body as { id: string }).id;
    const key = await call('/keys', { key: user.managementKey, body: { name: 'identity e2e intern key', intern_id: internId } });
    internKey = (key.body as { key: string }).key;
  });

  afterAll(() => database.end());

  it('before linking: no identity, and signing is 403 personal_identity_required', async () => {
    const me = await call('/identity', { key: user.standardKey });
    expect(me.status).toBe(200);
    expect((me.body as any).data).toMatchObject({ identity: null, key: { kind: 'standard' } });
    const refused = await sign(user.standardKey);
    expect(refused.status).toBe(403);
    expect(envelopeOf(refused).metadata).toMatchObject({ reason: 'personal_identity_required', retryable: false });
  });

  it('the full login (start, provider login form, consent, callback) links the subject; signing then names it, whatever the request says', async () => {
    const result = await linkIdentity({ baseUrl: stack.baseUrl, apiKey: user.standardKey, login: 'alice', password: 'alice-password' });
    expect(result.status).toBe(200);
    expect(result.body).toContain('Identity linked');
    expect(result.body).toContain('alice');
    const me = (await call('/identity', { key: user.standardKey })).body as any;
    expect(me.data.identity).toMatchObject({ issuer: stack.oidcIssuer, subject: 'alice', current_issuer: true });
    expect(Date.parse(me.data.identity.linked_at)).toBeGreaterThan(Date.now() - 60_000);

    // At once, with no wait for a cache: the callback's gateway dropped the user's keys.
    const signed = await sign(user.standardKey, { 'x-ori-invoke-user': 'mallory' });
    expect(signed.status).toBe(200);
    expect((signed.body as Record<string, string>)['x-ori-invoke-user']).toBe('alice');
    // An intern key signs as the person who made it: its creator is this user.
    const byIntern = await sign(internKey);
    expect(byIntern.status).toBe(200);
    expect((byIntern.body as Record<string, string>)['x-ori-invoke-user']).toBe('alice');
    expect(((await call('/identity', { key: internKey })).body as any).data).toMatchObject({
      key: { kind: 'intern' },
      identity: { subject: 'alice' },
    });
  });

  it('refuses an unknown state, a replayed callback, an expired login and an ID token whose nonce does not match', async () => {
    const other = newUser('identity e2e states');
    const forged = await getPage(`${callbackPrefix}?code=abc&state=${'x'.repeat(43)}`);
    expect(forged.status).toBe(400);
    expect(forged.type).toMatch(/^text\/html/);
    expect(forged.text).toContain('invalid_state');
    expect((await getPage(`${callbackPrefix}?code=abc`)).status).toBe(400);

    // Replay: the first use links, the second finds the state gone.
    const url = await callbackUrlFor(other.standardKey);
    expect((await getPage(url)).status).toBe(200);
    const replayed = await getPage(url);
    expect(replayed.status).toBe(400);
    expect(replayed.text).toContain('invalid_state');
    expect(((await call('/identity', { key: other.standardKey, method: 'DELETE' })).body as any).data.identity).toBeNull();

    const expired = await callbackUrlFor(other.standardKey);
    await database.query(`UPDATE oidc_login_states SET expires_at = now() - interval '1 second' WHERE state = $1`, [
      new URL(expired).searchParams.get('state'),
    ]);
    const late = await getPage(expired);
    expect(late.status).toBe(400);
    expect(late.text).toContain('expired_state');

    // The nonce stored with the login no longer matches the one the provider put in the ID token.
    const tampered = await callbackUrlFor(other.standardKey);
    await database.query(`UPDATE oidc_login_states SET nonce = 'not-the-nonce-sent' WHERE state = $1`, [
      new URL(tampered).searchParams.get('state'),
    ]);
    const wrongNonce = await getPage(tampered);
    expect(wrongNonce.status).toBe(400);
    expect(wrongNonce.text).toContain('id_token_rejected');

    // A denied consent comes back as the provider's error.
    const denied = await headlessLogin({
      authorizationUrl: await startLogin(other.standardKey),
      login: 'bob',
      password: 'bob-password',
      deny: true,
    });
    expect(denied.status).toBe(400);
    expect(denied.body).toContain('oidc_error');

    expect(((await call('/identity', { key: other.standardKey })).body as any).data.identity).toBeNull();
    expect((await sign(other.standardKey)).status).toBe(403);
  });

  it('one identity, one user: linking a subject another user holds is 409', async () => {
    const other = newUser('identity e2e conflict');
    const result = await headlessLogin({
      authorizationUrl: await startLogin(other.standardKey),
      login: 'alice',
      password: 'alice-password',
    });
    expect(result.status).toBe(409);
    expect(result.body).toContain('identity_in_use');
  });

  it('start needs a key, and a person’s key: an intern key may not link or unlink', async () => {
    expect((await call('/identity/oidc/start', { key: null, method: 'POST' })).status).toBe(401);
    const byIntern = await call('/identity/oidc/start', { key: internKey, method: 'POST' });
    expect(byIntern.status).toBe(403);
    expect(envelopeOf(byIntern).metadata).toMatchObject({ reason: 'person_key_required' });
    expect((await call('/identity', { key: internKey, method: 'DELETE' })).status).toBe(403);
  });

  it('unlinking: the identity is gone and signing is refused again at once', async () => {
    const unlinked = await call('/identity', { key: user.managementKey, method: 'DELETE' });
    expect(unlinked.status).toBe(200);
    expect((unlinked.body as any).data.identity).toBeNull();
    const refused = await sign(user.standardKey);
    expect(refused.status).toBe(403);
    expect(envelopeOf(refused).metadata).toMatchObject({ reason: 'personal_identity_required' });
    expect((await sign(internKey)).status).toBe(403);
  });
});
