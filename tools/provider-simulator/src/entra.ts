import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { sendJson } from './http.ts';

/** The simulated Microsoft Entra ID tenant and the app registration allowed to call the Azure resource. */
export const SIM_ENTRA_TENANT_ID = process.env.SIMULATOR_ENTRA_TENANT_ID || '5f1c1a6e-0000-4000-8000-00000000e17a';
export const SIM_ENTRA_CLIENT_ID = process.env.SIMULATOR_ENTRA_CLIENT_ID || '0c7e55a1-0000-4000-8000-0000000c11e7';
export const SIM_ENTRA_CLIENT_SECRET = process.env.SIMULATOR_ENTRA_CLIENT_SECRET || 'sim~entra~client~secret';
/** The scope an Azure OpenAI token is asked for: the Cognitive Services resource's default scope. */
const COGNITIVE_SERVICES_SCOPE = 'https://cognitiveservices.azure.com/.default';
const TOKEN_TTL_SECONDS = 3599;
const MAX_TOKENS = 10_000;

/** Access tokens issued, with their expiry (ms since epoch), and how many were ever issued (`GET /sim/entra/issued`). */
const issued = new Map<string, number>();
let issuedCount = 0;

export function entraTokensIssued(): number {
  return issuedCount;
}

/** `/{tenant}/oauth2/v2.0/token` and `/{tenant}/v2.0/.well-known/openid-configuration`, as login.microsoftonline.com serves them. */
const ENTRA_ROUTE = /^\/([A-Za-z0-9.-]+)\/(oauth2\/v2\.0\/token|v2\.0\/\.well-known\/openid-configuration)$/;

export function isEntraRoute(path: string): boolean {
  return ENTRA_ROUTE.test(path);
}

const aadError = (res: ServerResponse, status: number, error: string, code: string, description: string) =>
  sendJson(res, status, {
    error,
    error_description: `${code}: ${description}`,
    error_codes: [Number(code.slice('AADSTS'.length))],
    timestamp: new Date()
      .toISOString()
      .replace('T', ' ')
      .replace(/\.\d+Z$/, 'Z'),
    trace_id: randomBytes(16).toString('hex'),
    correlation_id: randomBytes(16).toString('hex'),
  });

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * Microsoft Entra ID's v2.0 endpoints for the client-credentials flow, over TLS only (Microsoft's
 * identity library refuses an authority that is not https): the tenant's OpenID configuration
 * (where MSAL reads the token endpoint) and the token endpoint, which checks the tenant, the
 * client id, its secret and the scope, and issues a bearer token the simulated Azure resource takes.
 */
export function handleEntra(req: IncomingMessage, res: ServerResponse, path: string, raw: Buffer | undefined): void {
  const [, tenant, route] = ENTRA_ROUTE.exec(path)!;
  if (!(req.socket as TLSSocket).encrypted)
    return aadError(res, 400, 'invalid_request', 'AADSTS90023', 'Public clients must use https (the authority is served over TLS only).');
  if (tenant !== SIM_ENTRA_TENANT_ID)
    return aadError(
      res,
      400,
      'invalid_request',
      'AADSTS90002',
      `Tenant '${tenant}' not found. Check to make sure you have the correct tenant ID.`,
    );
  const authority = `https://${req.headers.host}/${tenant}`;
  if (route !== 'oauth2/v2.0/token') {
    return sendJson(res, 200, {
      token_endpoint: `${authority}/oauth2/v2.0/token`,
      token_endpoint_auth_methods_supported: ['client_secret_post', 'private_key_jwt', 'client_secret_basic'],
      jwks_uri: `${authority}/discovery/v2.0/keys`,
      response_modes_supported: ['query', 'fragment', 'form_post'],
      subject_types_supported: ['pairwise'],
      id_token_signing_alg_values_supported: ['RS256'],
      response_types_supported: ['code', 'id_token', 'code id_token', 'id_token token'],
      scopes_supported: ['openid', 'profile', 'email', 'offline_access'],
      issuer: `${authority}/v2.0`,
      authorization_endpoint: `${authority}/oauth2/v2.0/authorize`,
      device_authorization_endpoint: `${authority}/oauth2/v2.0/devicecode`,
      end_session_endpoint: `${authority}/oauth2/v2.0/logout`,
      tenant_region_scope: 'EU',
      cloud_instance_name: 'microsoftonline.com',
    });
  }
  if (req.method !== 'POST' || raw === undefined)
    return aadError(res, 400, 'invalid_request', 'AADSTS900561', 'The endpoint only accepts POST requests.');
  const form = new URLSearchParams(raw.toString('utf8'));
  if (form.get('grant_type') !== 'client_credentials')
    return aadError(res, 400, 'unsupported_grant_type', 'AADSTS70003', 'The app requested an unsupported grant type.');
  const clientId = form.get('client_id') ?? '';
  if (clientId !== SIM_ENTRA_CLIENT_ID)
    return aadError(
      res,
      400,
      'unauthorized_client',
      'AADSTS700016',
      `Application with identifier '${clientId}' was not found in the directory '${tenant}'.`,
    );
  if (!sameText(form.get('client_secret') ?? '', SIM_ENTRA_CLIENT_SECRET))
    return aadError(res, 401, 'invalid_client', 'AADSTS7000215', 'Invalid client secret provided.');
  const scopes = (form.get('scope') ?? '').split(' ').filter(Boolean);
  if (!scopes.includes(COGNITIVE_SERVICES_SCOPE))
    return aadError(res, 400, 'invalid_scope', 'AADSTS1002012', 'The provided value for scope is not valid.');
  const token = issueEntraToken();
  sendJson(res, 200, { token_type: 'Bearer', expires_in: TOKEN_TTL_SECONDS, ext_expires_in: TOKEN_TTL_SECONDS, access_token: token });
}

/** A new access token the simulated Azure resource takes for TOKEN_TTL_SECONDS (also issued by the managed-identity endpoints). */
export function issueEntraToken(): string {
  const token = `eyJ0eXAiOiJKV1Qi.sim-entra.${randomBytes(24).toString('base64url')}`;
  issued.set(token, Date.now() + TOKEN_TTL_SECONDS * 1000);
  issuedCount++;
  if (issued.size > MAX_TOKENS) issued.delete(issued.keys().next().value!);
  return token;
}

export { TOKEN_TTL_SECONDS as ENTRA_TOKEN_TTL_SECONDS };

/** Whether the request's Bearer token was issued here and is unexpired ('missing' when there is none). */
export function entraTokenStatus(req: IncomingMessage): 'missing' | 'invalid' | 'ok' {
  const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (!token) return 'missing';
  const expiry = issued.get(token);
  return expiry !== undefined && expiry > Date.now() ? 'ok' : 'invalid';
}
