import { Inject, Injectable, Logger } from '@nestjs/common';
import { oidcSettingsOf, type OidcSettings } from '@gw/config';
import { GatewayError } from '@gw/errors';
import * as oidc from 'openid-client';
import { MANAGEMENT_ENV, type ManagementEnv } from '../env.js';

/** Discovery and network calls to the issuer give up after this many seconds. */
const ISSUER_TIMEOUT_SECONDS = 10;

/**
 * The OIDC relying party (openid-client): the issuer's metadata is discovered on first use
 * (and again after a failure, so the service starts even while the issuer is down), the client
 * authenticates with client_secret_basic, and ID tokens are checked for signature too (the
 * non-repudiation checks: openid-client otherwise trusts a token received over TLS from the
 * token endpoint).
 */
@Injectable()
export class OidcClient {
  private readonly logger = new Logger(OidcClient.name);
  readonly settings: OidcSettings | null;
  private configuration?: Promise<oidc.Configuration>;

  constructor(@Inject(MANAGEMENT_ENV) env: ManagementEnv) {
    this.settings = oidcSettingsOf(env);
  }

  /**
   * Whether a stored issuer is the configured one (the ID token's `iss` equals the issuer URL,
   * OIDC Discovery §4.3; compared without a trailing slash). False when none is configured.
   */
  isCurrentIssuer(issuer: string | null): boolean {
    if (!this.settings || issuer === null) return false;
    return issuer.replace(/\/+$/, '') === this.settings.issuerUrl.href.replace(/\/+$/, '');
  }

  /** The settings, or 503 when identity linking is not configured here. */
  requireSettings(): OidcSettings {
    if (!this.settings) {
      throw new GatewayError(503, 'Personal identities are not configured on this gateway (OIDC_ISSUER_URL is unset)', {
        errorType: 'server',
        metadata: { reason: 'oidc_not_configured', retryable: false },
      });
    }
    return this.settings;
  }

  config(): Promise<oidc.Configuration> {
    const settings = this.requireSettings();
    this.configuration ??= this.discover(settings).catch((error: unknown) => {
      this.configuration = undefined;
      this.logger.warn(`OIDC discovery at ${settings.issuerUrl.href} failed: ${(error as Error).message}`);
      throw new GatewayError(502, 'The identity provider could not be reached; try again', {
        errorType: 'provider_unavailable',
        metadata: { reason: 'issuer_unreachable', retryable: true },
      });
    });
    return this.configuration;
  }

  private async discover(settings: OidcSettings): Promise<oidc.Configuration> {
    const config = await oidc.discovery(
      settings.issuerUrl,
      settings.clientId,
      { redirect_uris: [settings.redirectUrl.href], response_types: ['code'] },
      oidc.ClientSecretBasic(settings.clientSecret),
      { execute: settings.insecure ? [oidc.allowInsecureRequests] : [], timeout: ISSUER_TIMEOUT_SECONDS },
    );
    oidc.enableNonRepudiationChecks(config);
    return config;
  }
}
