import { IsInt, Max, Min } from 'class-validator';
import { DatabaseServiceEnv, IsKeyEncryptionKeys, IsOidcVariable } from '@gw/config';

/** Environment of the management service (every variable: docs/configuration.md). */
export class ManagementEnv extends DatabaseServiceEnv {
  /** BYOK key-encryption keys, `v2:<base64 32 bytes>,v1:<...>`; the first is current (ADR byok). */
  @IsKeyEncryptionKeys()
  BYOK_KEKS!: string;

  /**
   * The OIDC issuer personal identities are linked with: all four or none (then
   * the identity endpoints answer 503 and nobody can sign). Any standard issuer: its
   * discovery document is read from `<issuer>/.well-known/openid-configuration`.
   */
  @IsOidcVariable('OIDC_ISSUER_URL')
  OIDC_ISSUER_URL?: string;

  @IsOidcVariable('OIDC_CLIENT_ID')
  OIDC_CLIENT_ID?: string;

  /** Client secret (client_secret_basic); from a Secret in production. */
  @IsOidcVariable('OIDC_CLIENT_SECRET')
  OIDC_CLIENT_SECRET?: string;

  /** The gateway's callback as registered at the issuer: `https://<host>/v1/identity/oidc/callback`. */
  @IsOidcVariable('OIDC_REDIRECT_URL')
  OIDC_REDIRECT_URL?: string;

  /** How long a started login may take before its callback is refused. */
  @IsInt()
  @Min(60)
  @Max(3600)
  OIDC_LOGIN_TTL_SECONDS: number = 600;

  /** Audit log rows older than this are deleted (hourly, by one replica); generations have their own retention in inference. */
  @IsInt()
  @Min(1)
  @Max(36_500)
  AUDIT_LOG_RETENTION_DAYS: number = 365;
}

export const MANAGEMENT_ENV = Symbol('MANAGEMENT_ENV');
