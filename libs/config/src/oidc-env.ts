import { registerDecorator, type ValidationArguments } from 'class-validator';

/** The four variables that configure the OIDC client of personal identities. */
export const OIDC_VARIABLES = ['OIDC_ISSUER_URL', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_REDIRECT_URL'] as const;
type OidcVariable = (typeof OIDC_VARIABLES)[number];

export interface OidcEnvFields {
  OIDC_ISSUER_URL?: string;
  OIDC_CLIENT_ID?: string;
  OIDC_CLIENT_SECRET?: string;
  OIDC_REDIRECT_URL?: string;
  OIDC_LOGIN_TTL_SECONDS: number;
}

/** What the OIDC client needs, once validated; null when identity linking is not configured. */
export interface OidcSettings {
  issuerUrl: URL;
  clientId: string;
  clientSecret: string;
  redirectUrl: URL;
  /** Plain HTTP, allowed for loopback hosts only (the local provider). */
  insecure: boolean;
  loginTtlSeconds: number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

const present = (value: unknown) => typeof value === 'string' && value.trim() !== '';

/**
 * Why a value of one of the OIDC variables is wrong, or null. All four or none: half a
 * configuration would start the service and fail at the first login. Issuer and redirect URL
 * must be https, except on a loopback host (a local provider); the issuer has no query or
 * fragment (OpenID Connect Discovery §2).
 */
export function oidcProblem(variable: OidcVariable, env: Partial<Record<OidcVariable, unknown>>): string | null {
  const set = OIDC_VARIABLES.filter((name) => present(env[name]));
  if (set.length === 0) return null;
  if (set.length < OIDC_VARIABLES.length) {
    return present(env[variable]) ? null : `set all of ${OIDC_VARIABLES.join(', ')}, or none (${set.join(', ')} set)`;
  }
  if (variable !== 'OIDC_ISSUER_URL' && variable !== 'OIDC_REDIRECT_URL') return null;
  let url: URL;
  try {
    url = new URL(String(env[variable]));
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname)))
    return 'must be https (http only on a loopback host)';
  if (variable === 'OIDC_ISSUER_URL' && (url.search || url.hash)) return 'must have no query or fragment';
  return null;
}

/** Property decorator: the variable passes {@link oidcProblem}. */
export function IsOidcVariable(variable: OidcVariable) {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isOidcVariable',
      target: target.constructor,
      propertyName,
      validator: {
        validate: (_value: unknown, args: ValidationArguments) =>
          oidcProblem(variable, args.object as Record<OidcVariable, unknown>) === null,
        defaultMessage: (args: ValidationArguments) => oidcProblem(variable, args!.object as Record<OidcVariable, unknown>) ?? 'invalid',
      },
    });
}

/** The validated settings, or null when none of the variables is set. */
export function oidcSettingsOf(env: OidcEnvFields): OidcSettings | null {
  if (!present(env.OIDC_ISSUER_URL)) return null;
  const issuerUrl = new URL(env.OIDC_ISSUER_URL!);
  const redirectUrl = new URL(env.OIDC_REDIRECT_URL!);
  return {
    issuerUrl,
    clientId: env.OIDC_CLIENT_ID!,
    clientSecret: env.OIDC_CLIENT_SECRET!,
    redirectUrl,
    insecure: issuerUrl.protocol === 'http:' || redirectUrl.protocol === 'http:',
    loginTtlSeconds: env.OIDC_LOGIN_TTL_SECONDS,
  };
}
