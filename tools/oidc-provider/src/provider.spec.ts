import * as oidc from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formsOf, headlessLogin } from './headless-login.ts';
import { startOidcProvider, type RunningOidcProvider } from './server.ts';

/*
 * The local provider with a real relying party (openid-client, as management uses it): the
 * code flow with PKCE through the provider's own login and consent pages, driven headlessly.
 * Local HTTP only; nothing is mocked.
 */
const redirectUri = 'http://127.0.0.1:9/callback';
let provider: RunningOidcProvider;
let config: oidc.Configuration;

beforeAll(async () => {
  provider = await startOidcProvider({ port: 0, clientId: 'rp', clientSecret: 'rp-secret', redirectUris: [redirectUri] });
  config = await oidc.discovery(
    new URL(provider.issuer),
    'rp',
    { redirect_uris: [redirectUri], response_types: ['code'] },
    oidc.ClientSecretBasic('rp-secret'),
    {
      execute: [oidc.allowInsecureRequests],
    },
  );
  oidc.enableNonRepudiationChecks(config);
});
afterAll(() => provider?.close());

async function start() {
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const verifier = oidc.randomPKCECodeVerifier();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri,
    scope: 'openid',
    state,
    nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  return { state, nonce, verifier, url: url.href };
}

describe('local OIDC provider', () => {
  it('logs a dev account in through the login and consent pages; the ID token verifies', async () => {
    const login = await start();
    const result = await headlessLogin({ authorizationUrl: login.url, login: 'alice', password: 'alice-password', stopAt: redirectUri });
    const callback = new URL(result.url);
    expect(callback.searchParams.get('state')).toBe(login.state);
    expect(callback.searchParams.get('iss')).toBe(provider.issuer);
    const tokens = await oidc.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: login.verifier,
      expectedState: login.state,
      expectedNonce: login.nonce,
      idTokenExpected: true,
    });
    expect(tokens.claims()).toMatchObject({ iss: provider.issuer, sub: 'alice', aud: 'rp', nonce: login.nonce });
  });

  it('refuses a wrong password, a missing PKCE challenge, and a code exchanged with the wrong verifier', async () => {
    const wrong = await start();
    await expect(headlessLogin({ authorizationUrl: wrong.url, login: 'alice', password: 'nope', stopAt: redirectUri })).rejects.toThrow(
      /refused the login|answered 401/,
    );

    const noPkce = new URL((await start()).url);
    noPkce.searchParams.delete('code_challenge');
    noPkce.searchParams.delete('code_challenge_method');
    const refused = await headlessLogin({ authorizationUrl: noPkce.href, login: 'alice', password: 'alice-password', stopAt: redirectUri });
    expect(new URL(refused.url).searchParams.get('error')).toBe('invalid_request');

    const login = await start();
    const result = await headlessLogin({ authorizationUrl: login.url, login: 'bob', password: 'bob-password', stopAt: redirectUri });
    await expect(
      oidc.authorizationCodeGrant(config, new URL(result.url), {
        pkceCodeVerifier: oidc.randomPKCECodeVerifier(),
        expectedState: login.state,
        expectedNonce: login.nonce,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('a denied consent comes back as access_denied', async () => {
    const login = await start();
    const result = await headlessLogin({
      authorizationUrl: login.url,
      login: 'bob',
      password: 'bob-password',
      stopAt: redirectUri,
      deny: true,
    });
    expect(new URL(result.url).searchParams.get('error')).toBe('access_denied');
  });

  it('reads forms out of a page', () => {
    const forms = formsOf(
      '<form method="post" action="/a?x=1&amp;y=2"><input name="login"><input type="hidden" name="t" value="v"></form><form action="/b"></form>',
    );
    expect(forms.map((form) => form.action)).toEqual(['/a?x=1&y=2', '/b']);
    expect([...forms[0]!.fields]).toEqual([
      ['login', ''],
      ['t', 'v'],
    ]);
  });
});
