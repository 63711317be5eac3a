import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

/** The prefix of every key secret (management's format), so a session key looks like any key to the auth path. */
const KEY_PREFIX = 'sk-gw-v1-';

/**
 * Cookie sealing and per-session derivations from one server secret. Cookies are AES-256-GCM
 * (confidential and tamper-evident); a session's API key and CSRF token are HMACs of its id,
 * so neither is stored anywhere and only a gateway holding the secret can recompute them.
 */
export class SessionSeal {
  private readonly sealKey: Buffer;
  private readonly macKey: Buffer;

  constructor(secret: string) {
    this.sealKey = Buffer.from(hkdfSync('sha256', secret, 'gw-console', 'cookie-seal', 32));
    this.macKey = Buffer.from(hkdfSync('sha256', secret, 'gw-console', 'derivations', 32));
  }

  seal(value: unknown, purpose: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.sealKey, iv);
    cipher.setAAD(Buffer.from(purpose));
    const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The sealed value, or null when it was not sealed here for this purpose (tampered, foreign, truncated). */
  open<T>(sealed: string, purpose: string): T | null {
    try {
      const bytes = Buffer.from(sealed, 'base64url');
      if (bytes.length < 29) return null;
      const decipher = createDecipheriv('aes-256-gcm', this.sealKey, bytes.subarray(0, 12));
      decipher.setAAD(Buffer.from(purpose));
      decipher.setAuthTag(bytes.subarray(12, 28));
      return JSON.parse(Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8')) as T;
    } catch {
      return null;
    }
  }

  /** The session's API key: never sent to the browser, never stored (management keeps its hash). */
  sessionKey(sessionId: string): string {
    return KEY_PREFIX + this.mac(`key|${sessionId}`);
  }

  csrfToken(sessionId: string): string {
    return this.mac(`csrf|${sessionId}`);
  }

  csrfMatches(sessionId: string, presented: unknown): boolean {
    if (typeof presented !== 'string') return false;
    const expected = Buffer.from(this.csrfToken(sessionId));
    const given = Buffer.from(presented);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  private mac(text: string): string {
    return createHmac('sha256', this.macKey).update(text).digest('hex');
  }
}

export const newSessionId = () => randomBytes(32).toString('base64url');
