import { Injectable } from '@nestjs/common';
import type { IdentityView, LinkedIdentityView, OidcCallbackView, OidcStartView, Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import * as oidc from 'openid-client';
import { Prisma } from '../generated/prisma/client.js';
import { ManagementEventsPublisher } from '../messaging/management-events.publisher.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { OidcClient } from './oidc-client.js';

/** Internal replies carry the user's key hashes so the answering gateway drops them from its cache at once. */
export type WithChangedKeys<T> = T & { changedKeyHashes: string[] };

/** Logins in progress kept per user: starting more drops the oldest, so one key cannot grow the table. */
export const PENDING_LOGINS_PER_USER = 10;

const refused = (status: number, message: string, reason: string) =>
  new GatewayError(status, message, { metadata: { reason, retryable: false } });

/** An intern is not a person: its key may read whose identity it signs with, never change it. */
function requirePersonKey(principal: Principal): void {
  if (principal.keyKind === 'intern') {
    throw refused(403, "An intern's key cannot link or unlink a personal identity; use the user's own key", 'person_key_required');
  }
}

/**
 * Personal identities by OIDC login: the authorization code flow with PKCE, the
 * pending logins in PostgreSQL (shared by replicas, single use, expiring), the pair
 * (issuer, subject) on the user. Signatures name the subject (intern-signing reads it from the
 * principal).
 */
@Injectable()
export class IdentityService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly client: OidcClient,
    private readonly events: ManagementEventsPublisher,
  ) {}

  async get(principal: Principal): Promise<IdentityView> {
    const user = await this.prisma.user.findUnique({ where: { id: principal.userId } });
    if (!user) throw GatewayError.notFound('The key has no user');
    return {
      user_id: user.id,
      email: user.email,
      name: user.name,
      workspace_id: principal.workspaceId,
      key: { hash: principal.keyHash, kind: principal.keyKind },
      identity: linkedIdentity(user, this.client),
    };
  }

  async start(principal: Principal, now = new Date()): Promise<OidcStartView> {
    requirePersonKey(principal);
    const settings = this.client.requireSettings();
    const config = await this.client.config();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const codeChallenge = await oidc.calculatePKCECodeChallenge(codeVerifier);
    await this.prisma.$transaction([
      // Sweeping here keeps the table at the logins of the last few minutes, with no timer.
      this.prisma.oidcLoginState.deleteMany({ where: { expiresAt: { lt: now } } }),
      this.prisma.$executeRaw`
        DELETE FROM oidc_login_states WHERE user_id = ${principal.userId}::uuid AND state NOT IN (
          SELECT state FROM oidc_login_states WHERE user_id = ${principal.userId}::uuid ORDER BY created_at DESC, state LIMIT ${PENDING_LOGINS_PER_USER - 1})`,
      this.prisma.oidcLoginState.create({
        data: {
          state,
          nonce,
          codeVerifier,
          userId: principal.userId,
          expiresAt: new Date(now.getTime() + settings.loginTtlSeconds * 1000),
        },
      }),
    ]);
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: settings.redirectUrl.href,
      scope: 'openid',
      state,
      nonce,
      code_challenge: codeChallenge,
      code_challenge_method: 'S256',
    });
    return { authorization_url: url.href, expires_in: settings.loginTtlSeconds };
  }

  /**
   * The issuer sent the browser back. The state is consumed first (a replayed or forged
   * callback finds nothing), then openid-client checks the response (state, `iss`), exchanges
   * the code with the PKCE verifier and verifies the ID token: signature against the issuer's
   * JWKS, `iss`, `aud`, `exp`/`iat`, and the nonce stored with the state.
   */
  async callback(query: string, now = new Date()): Promise<WithChangedKeys<OidcCallbackView>> {
    const settings = this.client.requireSettings();
    const params = new URLSearchParams(query);
    const state = params.get('state');
    if (!state) throw refused(400, 'The callback has no state', 'invalid_state');
    const pending = await this.prisma.oidcLoginState.delete({ where: { state } }).catch((error: unknown) => {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2025') return null;
      throw error;
    });
    if (!pending) throw refused(400, 'Unknown or already used login state; start the login again', 'invalid_state');
    if (pending.expiresAt <= now) throw refused(400, 'The login took too long; start it again', 'expired_state');
    if (params.has('error')) {
      throw refused(400, `The identity provider refused the login: ${params.get('error')}`, 'oidc_error');
    }
    const config = await this.client.config();
    const currentUrl = new URL(settings.redirectUrl.href);
    currentUrl.search = params.toString();
    let claims: oidc.IDToken;
    try {
      const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims()!;
    } catch (error) {
      throw asCallbackError(error);
    }
    const identity = { oidcIssuer: claims.iss, oidcSubject: claims.sub, oidcLinkedAt: now };
    try {
      await this.prisma.user.update({ where: { id: pending.userId }, data: identity });
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002') {
        throw refused(409, 'This identity is already linked to another user; unlink it there first', 'identity_in_use');
      }
      throw error;
    }
    const changedKeyHashes = await this.keysChanged(pending.userId);
    return { user_id: pending.userId, identity: linkedIdentity(identity, this.client)!, changedKeyHashes };
  }

  async unlink(principal: Principal): Promise<WithChangedKeys<IdentityView>> {
    requirePersonKey(principal);
    await this.prisma.user.update({ where: { id: principal.userId }, data: { oidcIssuer: null, oidcSubject: null, oidcLinkedAt: null } });
    const changedKeyHashes = await this.keysChanged(principal.userId);
    return { ...(await this.get(principal)), changedKeyHashes };
  }

  /** Every key the user made (intern keys included) carries the identity: gateways drop them. */
  private async keysChanged(userId: string): Promise<string[]> {
    const keys = await this.prisma.apiKey.findMany({ where: { creatorUserId: userId }, select: { hash: true } });
    const hashes = keys.map((key) => key.hash);
    this.events.keysChanged(hashes);
    return hashes;
  }
}

function linkedIdentity(
  user: { oidcIssuer: string | null; oidcSubject: string | null; oidcLinkedAt: Date | null },
  client: OidcClient,
): LinkedIdentityView | null {
  if (user.oidcIssuer === null || user.oidcSubject === null) return null;
  return {
    issuer: user.oidcIssuer,
    subject: user.oidcSubject,
    linked_at: (user.oidcLinkedAt ?? new Date(0)).toISOString(),
    current_issuer: client.isCurrentIssuer(user.oidcIssuer),
  };
}

/**
 * openid-client's refusals: the issuer's own error answer (a used or foreign code, a wrong
 * verifier) and any failed check of the response or ID token are the login's fault (400);
 * anything else (the issuer unreachable) is retryable.
 */
function asCallbackError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof oidc.ResponseBodyError || error instanceof oidc.AuthorizationResponseError) {
    return refused(400, `The identity provider refused the code exchange: ${error.error}`, 'oidc_error');
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && code.startsWith('OAUTH_')) {
    return refused(400, `The identity provider's answer failed verification (${code})`, 'id_token_rejected');
  }
  return new GatewayError(502, 'The identity provider could not be reached; try again', {
    errorType: 'provider_unavailable',
    metadata: { reason: 'issuer_unreachable', retryable: true },
  });
}
