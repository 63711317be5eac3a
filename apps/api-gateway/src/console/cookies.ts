/** The request's cookies by name (RFC 6265 §5.4: the first of a name wins). */
export function readCookies(header: string | undefined): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq < 1) continue;
    const name = part.slice(0, eq).trim();
    if (!cookies.has(name)) cookies.set(name, part.slice(eq + 1).trim());
  }
  return cookies;
}

export interface CookieOptions {
  path: string;
  maxAgeSeconds?: number;
  sameSite: 'Strict' | 'Lax';
  /** Secure is dropped only for plain-HTTP loopback, where browsers accept it anyway; kept for everything else. */
  secure: boolean;
}

export function setCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${value}`, `Path=${options.path}`, 'HttpOnly', `SameSite=${options.sameSite}`];
  if (options.secure) parts.push('Secure');
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  return parts.join('; ');
}

export const clearCookie = (name: string, path: string) => `${name}=; Path=${path}; HttpOnly; SameSite=Lax; Secure; Max-Age=0`;
