import type { SessionSeal } from './session-seal.js';

export const SESSION_COOKIE = 'gw_console';
export const LOGIN_COOKIE = 'gw_console_login';
export const SESSION_PURPOSE = 'session';
export const LOGIN_PURPOSE = 'login';

/** What the sealed session cookie holds; the key and CSRF token are derived from `sid`, never stored. */
export interface ConsoleSession {
  sid: string;
  /** The user, for logout everywhere. */
  uid: string;
  role: string;
  /** Set for an operator's session: the operator's name (the key is looked up by it, never sealed in the cookie). */
  op?: string;
  /**
   * Set for a session opened with a management key: that key's hash (never the key). The
   * session lives only while that key does (disabled or deleted: the session ends).
   */
  src?: string;
  /** Signed in at, and last used at (epoch ms). */
  iat: number;
  seen: number;
}

export type SessionCheck = { session: ConsoleSession; refresh: boolean } | { session: null; reason: 'none' | 'idle' | 'expired' };

/** Re-sealing the cookie on every request would churn Set-Cookie; once a minute keeps the idle clock honest enough. */
const SEEN_RESOLUTION_MS = 60_000;

/** The cookie's session if it is ours and neither idle too long nor past its absolute lifetime. */
export function checkSession(
  seal: SessionSeal,
  sealed: string | undefined,
  limits: { idleSeconds: number; absoluteSeconds: number },
  now = Date.now(),
): SessionCheck {
  const session = sealed ? seal.open<ConsoleSession>(sealed, SESSION_PURPOSE) : null;
  if (!session || typeof session.sid !== 'string') return { session: null, reason: 'none' };
  if (now - session.iat >= limits.absoluteSeconds * 1000) return { session: null, reason: 'expired' };
  if (now - session.seen >= limits.idleSeconds * 1000) return { session: null, reason: 'idle' };
  const refresh = now - session.seen >= SEEN_RESOLUTION_MS;
  return { session: refresh ? { ...session, seen: now } : session, refresh };
}
