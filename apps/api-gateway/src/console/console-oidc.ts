import { GatewayError } from '@gw/errors';
import * as oidc from 'openid-client';
import type { ConsoleSettings } from './console-settings.js';

const ISSUER_TIMEOUT_SECONDS = 10;

/** What the browser's login-state cookie holds between the redirect to the issuer and its callback. */
export interface PendingLogin {
  state: string;
  nonce: string;
  verifier: string;
  /** Epoch ms after which the callback is refused. */
  expires: number;
}

/** The verified person: the ID token's issuer and subject. */
export interface SignedInPerson {
  issuer: string;
  subject: string;
}

const unavailable = () =>
  new GatewayError(502, 'The identity provider could not be reached; try again', {
    errorType: 'provider_unavailable',
    metadata: { reason: 'issuer_unreachable', retryable: true },
  });

const refused = (message: string, reason: string) => new GatewayError(400, message, { metadata: { reason, retryable: false } });

/**
 * The console's OIDC relying party (openid-client): authorization code with PKCE (S256), state
 * and nonce; the ID token's signature is checked against the issuer's JWKS too (non-repudiation
 * checks on, as for management's client). Discovery on first use and again after a failure.
 */
export class ConsoleOidc {
  private configuration?: Promise<oidc.Configuration>;

  constructor(private readonly settings: NonNullable<ConsoleSettings['oidc']>) {}

  async start(ttlMs = 600_000, now = Date.now()): Promise<{ url: string; pending: PendingLogin }> {
    const config = await this.config();
    const pending = { state: oidc.randomState(), nonce: oidc.randomNonce(), verifier: oidc.randomPKCECodeVerifier(), expires: now + ttlMs };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.settings.redirectUrl.href,
      scope: 'openid email profile',
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.verifier),
      code_challenge_method: 'S256',
    });
    return { url: url.href, pending };
  }

  /** Checks the callback against the login this browser started, exchanges the code, verifies the ID token. */
  async finish(query: string, pending: PendingLogin | null, now = Date.now()): Promise<SignedInPerson> {
    const params = new URLSearchParams(query);
    if (!pending || pending.state !== params.get('state')) {
      throw refused('This sign-in was not started in this browser, or was already used; sign in again', 'invalid_state');
    }
    if (pending.expires <= now) throw refused('The sign-in took too long; sign in again', 'expired_state');
    if (params.has('error')) throw refused(`The identity provider refused the sign-in: ${params.get('error')}`, 'oidc_error');
    const config = await this.config();
    const currentUrl = new URL(this.settings.redirectUrl.href);
    currentUrl.search = params.toString();
    try {
      const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: pending.verifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims()!;
      return { issuer: claims.iss, subject: claims.sub };
    } catch (error) {
      if (error instanceof oidc.ResponseBodyError || error instanceof oidc.AuthorizationResponseError) {
        throw refused(`The identity provider refused the code exchange: ${error.error}`, 'oidc_error');
      }
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && code.startsWith('OAUTH_')) {
        throw refused(`The identity provider's answer failed verification (${code})`, 'id_token_rejected');
      }
      throw unavailable();
    }
  }

  private config(): Promise<oidc.Configuration> {
    const settings = this.settings;
    this.configuration ??= oidc
      .discovery(
        settings.issuerUrl,
        settings.clientId,
        { redirect_uris: [settings.redirectUrl.href], response_types: ['code'] },
        oidc.ClientSecretBasic(settings.clientSecret),
        { execute: settings.insecure ? [oidc.allowInsecureRequests] : [], timeout: ISSUER_TIMEOUT_SECONDS },
      )
      .then((config) => {
        oidc.enableNonRepudiationChecks(config);
        return config;
      })
      .catch(() => {
        this.configuration = undefined;
        throw unavailable();
      });
    return this.configuration;
  }
}
