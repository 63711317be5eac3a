import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { GatewayEnv } from '../env.js';

/** The console's configuration, once read; `oidc` null when sign-in is not configured here. */
export interface ConsoleSettings {
  oidc: { issuerUrl: URL; clientId: string; clientSecret: string; redirectUrl: URL; insecure: boolean } | null;
  /** The origin writes must come from (checked beside the CSRF token). */
  origin: string | null;
  secret: string | null;
  idleSeconds: number;
  absoluteSeconds: number;
  staticDir: string;
  /** `OPERATOR_API_KEYS`: an operator key signs in to the catalog pages. */
  operatorKeys: string;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export const CONSOLE_CALLBACK_PATH = '/console/auth/callback';

export function consoleSettingsOf(env: GatewayEnv): ConsoleSettings {
  const origin = env.CONSOLE_PUBLIC_ORIGIN ? new URL(env.CONSOLE_PUBLIC_ORIGIN).origin : null;
  const configured = env.CONSOLE_OIDC_ISSUER_URL && env.CONSOLE_OIDC_CLIENT_ID && env.CONSOLE_OIDC_CLIENT_SECRET && origin;
  let oidc: ConsoleSettings['oidc'] = null;
  if (configured && env.CONSOLE_SESSION_SECRET) {
    const issuerUrl = new URL(env.CONSOLE_OIDC_ISSUER_URL!);
    const redirectUrl = new URL(CONSOLE_CALLBACK_PATH, origin);
    const plain = (url: URL) => url.protocol === 'http:';
    // Plain HTTP only on loopback (the local provider), as for management's client.
    for (const url of [issuerUrl, redirectUrl]) {
      if (plain(url) && !LOOPBACK.has(url.hostname)) throw new Error(`CONSOLE_*: ${url.href} must be https (http only on a loopback host)`);
    }
    oidc = {
      issuerUrl,
      clientId: env.CONSOLE_OIDC_CLIENT_ID!,
      clientSecret: env.CONSOLE_OIDC_CLIENT_SECRET!,
      redirectUrl,
      insecure: plain(issuerUrl) || plain(redirectUrl),
    };
  }
  const here = dirname(fileURLToPath(import.meta.url));
  return {
    oidc,
    origin,
    secret: env.CONSOLE_SESSION_SECRET ?? null,
    idleSeconds: env.CONSOLE_IDLE_TIMEOUT_SECONDS,
    absoluteSeconds: env.CONSOLE_ABSOLUTE_TIMEOUT_SECONDS,
    // dist/console/ (built) or src/console/ (tests from source): both three levels below apps/.
    staticDir: env.CONSOLE_STATIC_DIR ?? resolve(here, '../../../console/dist'),
    operatorKeys: env.OPERATOR_API_KEYS,
  };
}
