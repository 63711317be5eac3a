import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { authenticate, findAccountBySub } from './accounts.ts';
import { consentPage, loginPage } from './pages.ts';

export interface OidcProviderOptions {
  host?: string;
  /** 0: any free port. */
  port?: number;
  /** Defaults to `http://<host>:<port>`. */
  issuer?: string;
  clientId: string;
  clientSecret: string;
  /** Where the provider may send the browser back (the gateway's callback). */
  redirectUris: string[];
}

export interface RunningOidcProvider {
  issuer: string;
  close(): Promise<void>;
}

const MAX_FORM_BYTES = 16 * 1024;

function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let text = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      text += chunk;
      if (text.length > MAX_FORM_BYTES) request.destroy(new Error('form too large'));
    });
    request.on('end', () => resolve(new URLSearchParams(text)));
    request.on('error', reject);
  });
}

function sendHtml(response: ServerResponse, status: number, html: string): void {
  response.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  response.end(html);
}

/**
 * A standards-conforming OpenID Provider (panva's oidc-provider) for the local stack and the
 * tests: one confidential client (the gateway), authorization code flow with PKCE required,
 * RS256 ID tokens signed with a key made at start (published at `/jwks`), and its own login and
 * consent pages for the dev accounts (accounts.ts). Everything is in memory: a restart forgets
 * sessions and grants, which only means logging in again.
 */
export async function startOidcProvider(options: OidcProviderOptions): Promise<RunningOidcProvider> {
  const host = options.host ?? '127.0.0.1';
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const issuer = options.issuer ?? `http://${host}:${port}`;
  const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
        id_token_signed_response_alg: 'RS256',
      },
    ],
    jwks: { keys: [{ ...signingKey, kid: `dev-${randomBytes(4).toString('hex')}`, use: 'sig', alg: 'RS256' }] },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    // Every client, confidential ones too, must use PKCE (the gateway always does).
    pkce: { required: () => true },
    // Seconds; short, as befits a login that finishes within minutes.
    ttl: { AuthorizationCode: 60, Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    findAccount: async (_ctx: unknown, sub: string) => {
      const account = findAccountBySub(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: async () => ({ sub, email: account.email, email_verified: true, name: account.name }) };
    },
    renderError: async (ctx: { type: string; body: string }, out: Record<string, string>) => {
      ctx.type = 'html';
      ctx.body = `<!doctype html><title>Error</title><h1>${escape(out.error ?? 'error')}</h1><p>${escape(out.error_description ?? '')}</p>`;
    },
  });
  const providerHandler = provider.callback();

  const interaction = async (
    request: IncomingMessage,
    response: ServerResponse,
    uid: string,
    action: string | undefined,
  ): Promise<void> => {
    const details = await provider.interactionDetails(request, response);
    if (details.uid !== uid) return sendHtml(response, 400, '<p>Interaction mismatch</p>');
    if (request.method === 'GET' && action === undefined) {
      if (details.prompt.name === 'login') return sendHtml(response, 200, loginPage(uid));
      return sendHtml(response, 200, consentPage(uid, details.params.client_id, String(details.params.scope ?? 'openid')));
    }
    if (request.method !== 'POST') return sendHtml(response, 405, '<p>Method not allowed</p>');
    if (action === 'login') {
      const form = await readForm(request);
      const account = authenticate(form.get('login') ?? '', form.get('password') ?? '');
      if (!account) return sendHtml(response, 401, loginPage(uid, 'Unknown login or wrong password'));
      return provider.interactionFinished(request, response, { login: { accountId: account.sub } }, { mergeWithLastSubmission: false });
    }
    if (action === 'confirm') {
      await readForm(request);
      const accountId = details.session?.accountId;
      if (!accountId) return sendHtml(response, 400, '<p>Not logged in</p>');
      const grant =
        (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
        new provider.Grant({ accountId, clientId: details.params.client_id });
      const missing = details.prompt.details as {
        missingOIDCScope?: string[];
        missingOIDCClaims?: string[];
        missingResourceScopes?: Record<string, string[]>;
      };
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
      for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
        grant.addResourceScope(resource, scopes.join(' '));
      const grantId = await grant.save();
      return provider.interactionFinished(request, response, { consent: { grantId } }, { mergeWithLastSubmission: true });
    }
    if (action === 'abort') {
      await readForm(request);
      return provider.interactionFinished(
        request,
        response,
        { error: 'access_denied', error_description: 'The user refused' },
        { mergeWithLastSubmission: false },
      );
    }
    return sendHtml(response, 404, '<p>Not found</p>');
  };

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const match = /^\/interaction\/([A-Za-z0-9_-]+)(?:\/(login|confirm|abort))?(?:\?.*)?$/.exec(request.url ?? '');
    if (!match) return providerHandler(request, response);
    interaction(request, response, match[1]!, match[2]).catch((error: unknown) => {
      if (!response.headersSent) sendHtml(response, 400, `<p>${escape((error as Error).message)}</p>`);
      else response.destroy();
    });
  });

  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
