import { describe, expect, it } from 'vitest';
import { checkSession, SESSION_PURPOSE, type ConsoleSession } from './console-session.js';
import { SessionSeal } from './session-seal.js';

const seal = new SessionSeal('x'.repeat(40));
const limits = { idleSeconds: 1800, absoluteSeconds: 43_200 };
const now = 1_800_000_000_000;
const session = (overrides: Partial<ConsoleSession> = {}): ConsoleSession => ({
  sid: 'session-id',
  uid: 'user',
  role: 'owner',
  iat: now - 1000,
  seen: now - 1000,
  ...overrides,
});

describe('console session cookie', () => {
  it('opens what it sealed, and nothing tampered, foreign or sealed for another purpose', () => {
    const sealed = seal.seal(session(), SESSION_PURPOSE);
    expect(seal.open(sealed, SESSION_PURPOSE)).toEqual(session());
    expect(seal.open(sealed, 'login')).toBeNull();
    const bytes = Buffer.from(sealed, 'base64url');
    bytes[bytes.length - 1]! ^= 1;
    expect(seal.open(bytes.toString('base64url'), SESSION_PURPOSE)).toBeNull();
    expect(new SessionSeal('y'.repeat(40)).open(sealed, SESSION_PURPOSE)).toBeNull();
    expect(seal.open('garbage', SESSION_PURPOSE)).toBeNull();
  });

  it('ends a session idle too long or past its absolute lifetime, and refreshes its last use at most once a minute', () => {
    const check = (value: ConsoleSession) => checkSession(seal, seal.seal(value, SESSION_PURPOSE), limits, now);
    expect(check(session())).toMatchObject({ session: { sid: 'session-id' }, refresh: false });
    expect(check(session({ seen: now - 61_000 }))).toMatchObject({ session: { seen: now }, refresh: true });
    expect(check(session({ seen: now - 1800_000 }))).toEqual({ session: null, reason: 'idle' });
    expect(check(session({ iat: now - 43_200_000, seen: now }))).toEqual({ session: null, reason: 'expired' });
    expect(checkSession(seal, undefined, limits, now)).toEqual({ session: null, reason: 'none' });
  });

  it('derives a key and a CSRF token per session that only the secret reproduces', () => {
    expect(seal.sessionKey('a')).toMatch(/^sk-gw-v1-[0-9a-f]{64}$/);
    expect(seal.sessionKey('a')).not.toBe(seal.sessionKey('b'));
    expect(seal.sessionKey('a')).not.toBe(new SessionSeal('y'.repeat(40)).sessionKey('a'));
    expect(seal.csrfMatches('a', seal.csrfToken('a'))).toBe(true);
    expect(seal.csrfMatches('a', seal.csrfToken('b'))).toBe(false);
    expect(seal.csrfMatches('a', undefined)).toBe(false);
  });
});
