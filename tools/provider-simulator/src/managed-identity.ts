import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { sendJson } from './http.ts';
import { ENTRA_TOKEN_TTL_SECONDS, issueEntraToken } from './entra.ts';

/** The secret App Service puts in IDENTITY_HEADER for its identity endpoint. */
export const SIM_IDENTITY_HEADER = process.env.SIMULATOR_IDENTITY_HEADER || 'sim-identity-header-secret';
/** The user-assigned identity the simulated host has (besides its system-assigned one). */
export const SIM_MANAGED_IDENTITY_CLIENT_ID = process.env.SIMULATOR_MANAGED_IDENTITY_CLIENT_ID || '7a1d0c3e-0000-4000-8000-0000000a11d0';
/** IMDS (`AZURE_POD_IDENTITY_AUTHORITY_HOST` points here) and App Service's endpoint (`IDENTITY_ENDPOINT`). */
export const IMDS_TOKEN_PATH = '/metadata/identity/oauth2/token';
export const APP_SERVICE_TOKEN_PATH = '/msi/token';

const AZURE_OPENAI_RESOURCES = new Set(['https://cognitiveservices.azure.com', 'https://cognitiveservices.azure.com/']);

/**
 * Azure's managed-identity token endpoints, checking what the real ones check: IMDS wants GET,
 * the `Metadata: true` header (refused without it, which is also how clients probe for it),
 * api-version 2018-02-01 and a resource; App Service wants its secret `X-IDENTITY-HEADER` and
 * api-version 2019-08-01. A user-assigned identity must be one the host has. Tokens are the
 * Entra stand-in's, so the simulated Azure resource takes them.
 */
export function handleManagedIdentity(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): void {
  const imds = path === IMDS_TOKEN_PATH;
  const fail = (status: number, error: string, description: string) => sendJson(res, status, { error, error_description: description });
  if (req.method !== 'GET') return fail(405, 'invalid_request', 'Only GET is supported');
  if (imds && req.headers.metadata !== 'true') return fail(400, 'invalid_request', 'Required metadata header not specified');
  if (!imds) {
    const secret = String(req.headers['x-identity-header'] ?? '');
    if (secret.length !== SIM_IDENTITY_HEADER.length || !timingSafeEqual(Buffer.from(secret), Buffer.from(SIM_IDENTITY_HEADER)))
      return fail(401, 'invalid_request', 'The X-IDENTITY-HEADER is missing or wrong');
  }
  const version = imds ? '2018-02-01' : '2019-08-01';
  if (query.get('api-version') !== version) return fail(400, 'invalid_request', `api-version must be ${version}`);
  const resource = query.get('resource');
  if (!resource) return fail(400, 'invalid_request', 'Required query variable resource is missing');
  if (!AZURE_OPENAI_RESOURCES.has(resource))
    return fail(400, 'invalid_resource', `The resource ${resource} is not an Azure OpenAI audience`);
  const clientId = query.get('client_id');
  if (clientId !== null && clientId !== SIM_MANAGED_IDENTITY_CLIENT_ID) return fail(400, 'invalid_request', 'Identity not found');
  const expiresOn = Math.floor(Date.now() / 1000) + ENTRA_TOKEN_TTL_SECONDS;
  sendJson(res, 200, {
    access_token: issueEntraToken(),
    expires_in: String(ENTRA_TOKEN_TTL_SECONDS),
    expires_on: String(expiresOn),
    not_before: String(expiresOn - ENTRA_TOKEN_TTL_SECONDS),
    resource,
    token_type: 'Bearer',
    client_id: clientId ?? '00000000-0000-4000-8000-00000000517e',
  });
}
