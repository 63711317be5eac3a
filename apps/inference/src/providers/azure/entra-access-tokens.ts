import { Inject, Injectable } from '@nestjs/common';
import {
  AuthenticationError,
  AuthenticationRequiredError,
  ClientSecretCredential,
  ManagedIdentityCredential,
  type TokenCredential,
} from '@azure/identity';
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';
import { Agent } from 'node:https';
import { INFERENCE_ENV, type InferenceEnv } from '../../env.js';
import { extraCertificateAuthorities } from '../../upstream/extra-certificate-authorities.js';
import { httpFailure, transportFailure } from '../../upstream/upstream-failure.js';

/** The scope of an Azure OpenAI (Cognitive Services) access token. */
const COGNITIVE_SERVICES_SCOPE = 'https://cognitiveservices.azure.com/.default';
const TOKEN_CALL_TIMEOUT_MS = 10_000;

/** A Microsoft Entra ID app registration that may call the Azure OpenAI resource (client-credentials flow). */
export interface EntraApp {
  tenantId: string;
  clientId: string;
  clientSecret: string;
  /** Another authority than Microsoft's public cloud (a sovereign cloud, or the provider simulator); https only. */
  authorityHost?: string;
}

/**
 * Azure OpenAI access tokens for Entra ID apps, through Microsoft's identity library: one
 * credential per app (kept by a digest of its fields, never by the secret's text), whose MSAL
 * cache shares the token between calls and renews it before it expires. Calls to the authority
 * trust the system's certificate authorities plus UPSTREAM_EXTRA_CA_FILE's.
 */
@Injectable()
export class EntraAccessTokens {
  private readonly credentials = new LRUCache<string, ClientSecretCredential>({ max: 256 });
  private readonly agent: Agent | undefined;
  private managedIdentity: ManagedIdentityCredential | undefined;

  constructor(@Inject(INFERENCE_ENV) private readonly env: InferenceEnv) {
    const ca = extraCertificateAuthorities(env);
    this.agent = ca ? new Agent({ ca, keepAlive: true }) : undefined;
  }

  /** A valid bearer token for the app (the cached one while it is fresh). */
  token(provider: string, app: EntraApp, signal?: AbortSignal): Promise<string> {
    return this.tokenOf(
      provider,
      this.credentialOf(app),
      ['The Entra ID app credential was refused', 'Entra ID token endpoint could not be reached'],
      signal,
    );
  }

  /**
   * A token of the host's managed identity (AZURE_MANAGED_IDENTITY_CLIENT_ID's, or the system-assigned
   * one), from the endpoint Microsoft's library finds (App Service's, else the instance metadata service).
   */
  managedIdentityToken(provider: string, signal?: AbortSignal): Promise<string> {
    const clientId = this.env.AZURE_MANAGED_IDENTITY_CLIENT_ID;
    this.managedIdentity ??= new ManagedIdentityCredential({ ...(clientId ? { clientId } : {}), retryOptions: { maxRetries: 1 } });
    // The library reports an identity the host lacks (IMDS's 400) as unavailable, like an absent endpoint:
    // not final, so routing may try another endpoint of the model.
    return this.tokenOf(
      provider,
      this.managedIdentity,
      ['The managed identity was refused', 'The managed identity endpoint gave no token'],
      signal,
    );
  }

  private async tokenOf(
    provider: string,
    credential: TokenCredential,
    [refused, unavailable]: [string, string],
    signal?: AbortSignal,
  ): Promise<string> {
    try {
      const token = await credential.getToken(COGNITIVE_SERVICES_SCOPE, {
        abortSignal: signal
          ? AbortSignal.any([signal, AbortSignal.timeout(TOKEN_CALL_TIMEOUT_MS)])
          : AbortSignal.timeout(TOKEN_CALL_TIMEOUT_MS),
      });
      if (!token) throw new Error('no token');
      return token.token;
    } catch (error) {
      if (signal?.aborted) throw transportFailure(provider, 'aborted', 'call was cancelled');
      // The library's error quotes the authority's answer; the caller learns only who failed.
      // A refused app (the library reports an invalid client as authentication required) is final,
      // as a refused api-key is; an unreachable or untrusted authority (CredentialUnavailableError) is not.
      if (error instanceof AuthenticationRequiredError || (error instanceof AuthenticationError && error.statusCode < 500))
        throw httpFailure(provider, 401, refused);
      throw transportFailure(provider, 'connect', unavailable);
    }
  }

  private credentialOf(app: EntraApp): ClientSecretCredential {
    const key = createHash('sha256')
      .update([app.authorityHost ?? '', app.tenantId, app.clientId, app.clientSecret].join('\n'))
      .digest('hex');
    let credential = this.credentials.get(key);
    if (!credential) {
      credential = new ClientSecretCredential(app.tenantId, app.clientId, app.clientSecret, {
        // Another authority has no entry in Microsoft's instance discovery: its own metadata is read instead.
        ...(app.authorityHost ? { authorityHost: app.authorityHost, disableInstanceDiscovery: true } : {}),
        ...(this.agent ? { agent: this.agent } : {}),
        retryOptions: { maxRetries: 1 },
      });
      this.credentials.set(key, credential);
    }
    return credential;
  }
}
