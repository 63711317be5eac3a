import {
  ConsoleOperatorSessionCheck,
  ConsoleOperatorSessionEnd,
  ConsoleOperatorSessionOpen,
  ConsoleSessionEnd,
  ConsoleSessionOpen,
  ConsoleSessionOpenWithKey,
} from '@gw/contracts';
import { GatewayError, toEnvelope } from '@gw/errors';
import type { RpcClient } from '@gw/messaging';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hash } from 'node:crypto';
import type { AuthCacheService } from '../auth/auth-cache.service.js';
import { toGatewayError } from '../errors/http-error.mapper.js';
import { ConsoleOidc, type PendingLogin } from './console-oidc.js';
import { checkSession, LOGIN_COOKIE, LOGIN_PURPOSE, SESSION_COOKIE, SESSION_PURPOSE, type ConsoleSession } from './console-session.js';
import { CONSOLE_CALLBACK_PATH, type ConsoleSettings } from './console-settings.js';
import { clearCookie, readCookies, setCookie } from './cookies.js';
import { consolePage } from './console-page.js';
import { ConsoleOperators, notAKey } from './operator-sign-in.js';
import { newSessionId, SessionSeal } from './session-seal.js';

const LOGIN_TTL_SECONDS = 600;
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export interface ConsoleDeps {
  settings: ConsoleSettings;
  rpc: RpcClient;
  auth: AuthCacheService;
}

/** A request the console accepted: its session and the key it acts with. */
export interface ConsoleCaller {
  session: ConsoleSession;
  key: string;
}

export function sendError(reply: FastifyReply, error: GatewayError): FastifyReply {
  return reply.status(error.status).header('cache-control', 'no-store').type('application/json; charset=utf-8').send(toEnvelope(error));
}

const notConfigured = () =>
  new GatewayError(503, 'Console sign-in is not configured on this gateway (CONSOLE_OIDC_* and CONSOLE_SESSION_SECRET)', {
    errorType: 'server',
    metadata: { reason: 'console_not_configured', retryable: false },
  });

const signedOut = (reason: string) =>
  new GatewayError(401, reason === 'none' ? 'Not signed in' : `The session ended (${reason}); sign in again`, {
    errorType: 'authentication',
    metadata: { reason: reason === 'none' ? 'no_session' : `session_${reason}`, retryable: false },
  });

/**
 * The console's sign-in, session and logout routes, and the session check every console API
 * call goes through. Raw Fastify routes: they are not part of the public API and
 * stay out of its OpenAPI document.
 */
export class ConsoleAuth {
  readonly seal: SessionSeal | null;
  private readonly oidc: ConsoleOidc | null;
  private readonly operators: ConsoleOperators;

  constructor(private readonly deps: ConsoleDeps) {
    this.seal = deps.settings.secret ? new SessionSeal(deps.settings.secret) : null;
    this.oidc = deps.settings.oidc ? new ConsoleOidc(deps.settings.oidc) : null;
    this.operators = new ConsoleOperators(deps.settings.operatorKeys);
  }

  register(fastify: FastifyInstance): void {
    fastify.get('/console/auth/login', (request, reply) => this.login(request, reply));
    fastify.get(CONSOLE_CALLBACK_PATH, (request, reply) => this.callback(request, reply));
    fastify.post('/console/auth/key', (request, reply) => this.keySignIn(request, reply));
    fastify.get('/console/auth/session', (request, reply) => this.current(request, reply));
    fastify.post('/console/auth/logout', (request, reply) => this.logout(request, reply));
  }

  /**
   * The caller's session, checked (cookie sealed here, idle and absolute limits) and, for a write,
   * its CSRF token and Origin; null after answering the refusal.
   */
  async authorize(request: FastifyRequest, reply: FastifyReply): Promise<ConsoleCaller | null> {
    if (!this.seal) {
      sendError(reply, notConfigured());
      return null;
    }
    const checked = checkSession(this.seal, readCookies(request.headers.cookie).get(SESSION_COOKIE), this.deps.settings);
    if (!checked.session) {
      if (checked.reason !== 'none') void reply.header('set-cookie', clearCookie(SESSION_COOKIE, '/console'));
      sendError(reply, signedOut(checked.reason));
      return null;
    }
    const { session } = checked;
    if (!SAFE_METHODS.has(request.method)) {
      const origin = request.headers.origin;
      if (origin !== undefined && origin !== this.deps.settings.origin) {
        sendError(reply, csrfRefused('The request comes from another origin'));
        return null;
      }
      if (!this.seal.csrfMatches(session.sid, request.headers['x-csrf-token'])) {
        sendError(reply, csrfRefused('Missing or wrong x-csrf-token header: every write needs the token of GET /console/auth/session'));
        return null;
      }
    }
    const key = session.op === undefined ? this.seal.sessionKey(session.sid) : this.operators.keyOf(session.op);
    let live: boolean;
    try {
      live = key !== undefined && (await this.stillLive(session));
    } catch (exception) {
      sendError(reply, toGatewayError(exception));
      return null;
    }
    if (!live || key === undefined) {
      this.ended(reply);
      sendError(reply, signedOut('ended'));
      return null;
    }
    if (checked.refresh) void reply.header('set-cookie', this.sessionCookie(session));
    return { session, key };
  }

  /**
   * What a sealed cookie cannot say: an operator's session is live while its row is (logout
   * deletes it); a management-key session while the key it was opened with is usable.
   */
  private async stillLive(session: ConsoleSession): Promise<boolean> {
    if (session.op !== undefined) {
      const check = { key_hash: this.sessionKeyHash(session.sid), operator: session.op };
      return (await this.deps.rpc.send(ConsoleOperatorSessionCheck, check)).live;
    }
    if (session.src !== undefined) return (await this.deps.auth.resolve(session.src))?.keyKind === 'management';
    return true;
  }

  private sessionKeyHash(sid: string): string {
    return hash('sha256', this.seal!.sessionKey(sid), 'hex');
  }

  /** The key of a session the API refused (deleted by a logout elsewhere, expired): the browser's cookie goes too. */
  ended(reply: FastifyReply): void {
    void reply.header('set-cookie', clearCookie(SESSION_COOKIE, '/console'));
  }

  private async login(_request: FastifyRequest, reply: FastifyReply) {
    if (!this.oidc || !this.seal) return sendError(reply, notConfigured());
    try {
      const { url, pending } = await this.oidc.start(LOGIN_TTL_SECONDS * 1000);
      // Lax: the issuer's redirect back is a cross-site navigation, which must carry it.
      const cookie = setCookie(LOGIN_COOKIE, this.seal.seal(pending, LOGIN_PURPOSE), {
        path: CONSOLE_CALLBACK_PATH,
        sameSite: 'Lax',
        secure: true,
        maxAgeSeconds: LOGIN_TTL_SECONDS,
      });
      return reply.header('set-cookie', cookie).header('cache-control', 'no-store').redirect(url, 303);
    } catch (exception) {
      return sendError(reply, toGatewayError(exception));
    }
  }

  /**
   * A key signs in: an operator key (they are no user, so not through SSO) or an admin's
   * management key, exchanged here for the same session as SSO's; the key is hashed at once
   * and never stored, logged or sent back. Only the page of this origin may post it (a login
   * CSRF would otherwise plant a session).
   */
  private async keySignIn(request: FastifyRequest, reply: FastifyReply) {
    if (!this.seal || !this.deps.settings.origin) return sendError(reply, notConfigured());
    if (request.headers.origin !== this.deps.settings.origin)
      return sendError(reply, csrfRefused('A key sign-in comes from the console page'));
    const presented = (request.body as { key?: unknown } | undefined)?.key;
    if (typeof presented !== 'string' || presented === '' || presented.length > 512) return sendError(reply, notAKey());
    const now = Date.now();
    const sid = newSessionId();
    const opened = {
      key_hash: this.sessionKeyHash(sid),
      expires_at: new Date(now + this.deps.settings.absoluteSeconds * 1000).toISOString(),
    };
    try {
      const operator = this.operators.nameOf(presented);
      if (operator) {
        await this.deps.rpc.send(ConsoleOperatorSessionOpen, { ...opened, operator });
        const session: ConsoleSession = { sid, uid: '', role: 'operator', op: operator, iat: now, seen: now };
        return reply.header('set-cookie', this.sessionCookie(session)).header('cache-control', 'no-store').send({ data: { operator } });
      }
      const src = hash('sha256', presented, 'hex');
      const user = await this.deps.rpc.send(ConsoleSessionOpenWithKey, { ...opened, presented_key_hash: src });
      const session: ConsoleSession = { sid, uid: user.user_id, role: user.role, src, iat: now, seen: now };
      return reply
        .header('set-cookie', this.sessionCookie(session))
        .header('cache-control', 'no-store')
        .send({ data: { user: { id: user.user_id, workspace_id: user.workspace_id, role: user.role } } });
    } catch (exception) {
      return sendError(reply, toGatewayError(exception));
    }
  }

  private async callback(request: FastifyRequest, reply: FastifyReply) {
    void reply
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .header('set-cookie', clearCookie(LOGIN_COOKIE, CONSOLE_CALLBACK_PATH));
    if (!this.oidc || !this.seal) return sendError(reply, notConfigured());
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?') + 1) : '';
    const sealedLogin = readCookies(request.headers.cookie).get(LOGIN_COOKIE);
    const pending = sealedLogin ? this.seal.open<PendingLogin>(sealedLogin, LOGIN_PURPOSE) : null;
    try {
      const person = await this.oidc.finish(query, pending);
      const now = Date.now();
      const sid = newSessionId();
      const user = await this.deps.rpc.send(ConsoleSessionOpen, {
        issuer: person.issuer,
        subject: person.subject,
        key_hash: hash('sha256', this.seal.sessionKey(sid), 'hex'),
        expires_at: new Date(now + this.deps.settings.absoluteSeconds * 1000).toISOString(),
      });
      const session: ConsoleSession = { sid, uid: user.user_id, role: user.role, iat: now, seen: now };
      // A 200 page that moves on, not a redirect: the SameSite=Strict cookie is then sent from the first same-site request.
      return reply
        .header('set-cookie', [clearCookie(LOGIN_COOKIE, CONSOLE_CALLBACK_PATH), this.sessionCookie(session)])
        .type('text/html; charset=utf-8')
        .send(consolePage('Signed in', ['Opening the console…'], '/console/'));
    } catch (exception) {
      const error = toGatewayError(exception);
      const reason = error.metadata?.reason as string | undefined;
      const message = error.status >= 500 ? 'The sign-in could not be finished; try again.' : error.message;
      return reply
        .status(error.status)
        .type('text/html; charset=utf-8')
        .send(consolePage('Not signed in', [message, `(${error.status}${reason ? ` ${reason}` : ''})`], null));
    }
  }

  /** Who is signed in, the CSRF token for writes, and the session's limits; 401 when none. */
  private async current(request: FastifyRequest, reply: FastifyReply) {
    const caller = await this.authorize(request, reply);
    if (!caller) return reply;
    if (caller.session.op !== undefined) return reply.header('cache-control', 'no-store').send({ data: this.operatorView(caller.session) });
    const identity = await request.server.inject({
      method: 'GET',
      url: '/v1/identity',
      headers: { authorization: `Bearer ${caller.key}` },
    });
    if (identity.statusCode === 401) {
      this.ended(reply);
      return sendError(reply, signedOut('ended'));
    }
    if (identity.statusCode !== 200) return reply.status(identity.statusCode).type('application/json').send(identity.body);
    const { data } = identity.json<{ data: Record<string, unknown> }>();
    const { absoluteSeconds, idleSeconds } = this.deps.settings;
    return reply.header('cache-control', 'no-store').send({
      data: {
        user: { id: data.user_id, email: data.email, name: data.name, workspace_id: data.workspace_id, role: caller.session.role },
        key_kind: (data.key as { kind: string }).kind,
        csrf_token: this.seal!.csrfToken(caller.session.sid),
        expires_at: new Date(caller.session.iat + absoluteSeconds * 1000).toISOString(),
        idle_timeout_seconds: idleSeconds,
      },
    });
  }

  /** Ends this session, or with `{"everywhere": true}` every console session of the user (or operator). */
  private async logout(request: FastifyRequest, reply: FastifyReply) {
    const caller = await this.authorize(request, reply);
    if (!caller) return reply;
    const everywhere = (request.body as { everywhere?: unknown } | undefined)?.everywhere === true;
    try {
      // An operator's sessions are rows: deleted, a copy of the cookie is refused on its next call.
      if (caller.session.op !== undefined) {
        const end = { key_hash: this.sessionKeyHash(caller.session.sid), operator: caller.session.op, everywhere };
        const { ended } = await this.deps.rpc.send(ConsoleOperatorSessionEnd, end);
        this.ended(reply);
        return reply.header('cache-control', 'no-store').send({ data: { ended_sessions: ended } });
      }
      const ended = await this.deps.rpc.send(ConsoleSessionEnd, {
        key_hash: hash('sha256', caller.key, 'hex'),
        user_id: caller.session.uid,
        everywhere,
      });
      this.deps.auth.forget(ended.changedKeyHashes);
      this.ended(reply);
      return reply.header('cache-control', 'no-store').send({ data: { ended_sessions: ended.changedKeyHashes.length } });
    } catch (exception) {
      return sendError(reply, toGatewayError(exception));
    }
  }

  private operatorView(session: ConsoleSession) {
    return {
      user: { id: '', email: '', name: session.op, workspace_id: '', role: 'operator' },
      key_kind: 'operator',
      csrf_token: this.seal!.csrfToken(session.sid),
      expires_at: new Date(session.iat + this.deps.settings.absoluteSeconds * 1000).toISOString(),
      idle_timeout_seconds: this.deps.settings.idleSeconds,
    };
  }

  private sessionCookie(session: ConsoleSession): string {
    return setCookie(SESSION_COOKIE, this.seal!.seal(session, SESSION_PURPOSE), {
      path: '/console',
      sameSite: 'Strict',
      secure: true,
      maxAgeSeconds: Math.max(0, Math.floor((session.iat + this.deps.settings.absoluteSeconds * 1000 - Date.now()) / 1000)),
    });
  }
}

const csrfRefused = (message: string) =>
  new GatewayError(403, message, { errorType: 'permission_denied', metadata: { reason: 'csrf_refused', retryable: false } });
