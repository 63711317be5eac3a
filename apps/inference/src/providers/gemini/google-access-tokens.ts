import { Injectable } from '@nestjs/common';
import { GatewayError } from '@gw/errors';
import { ExternalAccountClient, JWT, type BaseExternalAccountClient } from 'google-auth-library';
import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { httpFailure, transportFailure } from '../../upstream/upstream-failure.js';

/** The scope Vertex AI's generateContent needs. */
const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';
/** Where google-auth-library exchanges a service account's signed assertion for an access token. */
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token';
/** A token is renewed this long before it expires, so no call goes out with one about to lapse. */
const REFRESH_BEFORE_EXPIRY_MS = 5 * 60_000;
const TOKEN_CALL_TIMEOUT_MS = 10_000;

interface ServiceAccount {
  type?: unknown;
  audience?: unknown;
  token_url?: unknown;
  credential_source?: unknown;
  client_email?: unknown;
  private_key?: unknown;
  private_key_id?: unknown;
  project_id?: unknown;
}

/** A service account's token source: google-auth-library's JWT client caches its token and renews it early. */
export interface GoogleCredential {
  projectId: string | undefined;
  client: JWT | BaseExternalAccountClient;
}

/**
 * Vertex AI access tokens from service-account credentials, through Google's own auth library.
 * A credential is the service account's JSON, or the path of its file (as
 * GOOGLE_APPLICATION_CREDENTIALS names it); BYOK credentials arrive as the JSON. One client per
 * credential (kept by its digest, never by its text), so tokens are shared by calls and renewed
 * before expiry. `tokenUrl` replaces Google's token endpoint (a private one, or the simulator).
 */
@Injectable()
export class GoogleAccessTokens {
  private readonly clients = new LRUCache<string, GoogleCredential>({ max: 256 });

  /** `byok`: a workspace's credential, which must be the JSON itself: a path would read a file of this host. */
  credential(source: string, tokenUrl?: string, byok = false): GoogleCredential {
    if (byok && !source.trimStart().startsWith('{'))
      throw GatewayError.badRequest("This provider's BYOK key must be the service account's JSON, not a path");
    const key = createHash('sha256')
      .update(`${tokenUrl ?? ''}\n${source}`)
      .digest('hex');
    let credential = this.clients.get(key);
    if (!credential) {
      const account = readServiceAccount(source);
      if (account.type === 'external_account') {
        // Its credential_source is a file, URL or program of the gateway's host: the operator's to name, never a workspace's.
        if (byok)
          throw GatewayError.badRequest("This provider's BYOK key must be a service account's JSON, not an external_account configuration");
        credential = externalAccountCredential(account);
      } else credential = createCredential(account, tokenUrl);
      this.clients.set(key, credential);
    }
    return credential;
  }

  /** A valid access token (the cached one, or a new one when it is within five minutes of expiring). */
  async accessToken(provider: string, credential: GoogleCredential): Promise<string> {
    try {
      const { token } = await credential.client.getAccessToken();
      if (!token) throw new Error('no token');
      return token;
    } catch (error) {
      // The library's error may quote the token endpoint's answer; the caller learns only who failed.
      // A refused credential (4xx) is final, as a refused API key is; an unreachable endpoint is not.
      const status = (error as { response?: { status?: unknown } }).response?.status;
      if (typeof status === 'number' && status >= 400 && status < 500)
        throw httpFailure(provider, 401, 'The service account credential was refused');
      throw transportFailure(provider, 'connect', 'token endpoint could not be reached');
    }
  }
}

/** True when `source` is a service account's JSON, or the path of a readable one (checked at start). */
export function isServiceAccountSource(source: string): boolean {
  try {
    readServiceAccount(source);
    return true;
  } catch {
    return false;
  }
}

function readServiceAccount(source: string): ServiceAccount {
  const text = source.trimStart().startsWith('{') ? source : readCredentialFile(source);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new GatewayError(502, 'The Google service account credential is not JSON', { errorType: 'provider_unavailable' });
  }
  const account = parsed as ServiceAccount;
  if (account?.type === 'external_account') {
    if (typeof account.audience !== 'string' || typeof account.token_url !== 'string' || typeof account.credential_source !== 'object')
      throw new GatewayError(502, 'The Google external_account credential lacks audience, token_url or credential_source', {
        errorType: 'provider_unavailable',
      });
    return account;
  }
  if (typeof account?.client_email !== 'string' || typeof account.private_key !== 'string') {
    throw new GatewayError(502, 'The Google service account credential lacks client_email or private_key', {
      errorType: 'provider_unavailable',
    });
  }
  return account;
}

function readCredentialFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    throw new GatewayError(502, 'The Google service account file cannot be read', { errorType: 'provider_unavailable' });
  }
}

function createCredential(account: ServiceAccount, tokenUrl: string | undefined): GoogleCredential {
  const client = new JWT({
    email: account.client_email as string,
    key: account.private_key as string,
    keyId: typeof account.private_key_id === 'string' ? account.private_key_id : undefined,
    scopes: [CLOUD_PLATFORM_SCOPE],
    eagerRefreshThresholdMillis: REFRESH_BEFORE_EXPIRY_MS,
    transporterOptions: { timeout: TOKEN_CALL_TIMEOUT_MS },
  });
  if (tokenUrl) {
    client.transporter.interceptors.request.add({
      resolved: async (options) => {
        if (options.url.href === GOOGLE_TOKEN_URL) options.url = new URL(tokenUrl);
        return options;
      },
    });
  }
  return { projectId: typeof account.project_id === 'string' ? account.project_id : undefined, client };
}

/**
 * Workload identity federation (GKE, EKS, AKS): an `external_account` configuration, whose
 * credential_source (the pod's projected token) google-auth-library reads and exchanges at
 * Google's STS (`token_url`) for a federated token, impersonating a service account if it says so.
 * It names no project: the catalog provider's `project` is used.
 */
function externalAccountCredential(account: ServiceAccount): GoogleCredential {
  const client = ExternalAccountClient.fromJSON({
    ...(account as Parameters<typeof ExternalAccountClient.fromJSON>[0]),
    scopes: [CLOUD_PLATFORM_SCOPE],
    eagerRefreshThresholdMillis: REFRESH_BEFORE_EXPIRY_MS,
  });
  if (!client)
    throw new GatewayError(502, 'The Google external_account credential is not one the auth library takes', {
      errorType: 'provider_unavailable',
    });
  return { projectId: undefined, client };
}
