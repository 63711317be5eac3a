import { createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { decodeJwt, jwtVerify, SignJWT } from 'jose';
import { sendJson } from './http.ts';

/** The audience Google's token endpoint demands in a service account's assertion. */
const GOOGLE_TOKEN_AUDIENCE = 'https://oauth2.googleapis.com/token';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

export interface ServiceAccountJson {
  type: 'service_account';
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  token_uri: string;
}

/**
 * A service account for the simulator's Vertex AI: a fresh RSA key, as Google issues one. The
 * simulator trusts the public half; whoever holds the JSON can get access tokens from it.
 */
export function createServiceAccount(tokenUri: string, project = 'sim-project'): ServiceAccountJson {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return {
    type: 'service_account',
    project_id: project,
    private_key_id: randomBytes(20).toString('hex'),
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: `gateway@${project}.iam.gserviceaccount.com`,
    client_id: String(BigInt(`0x${randomBytes(8).toString('hex')}`)),
    token_uri: tokenUri,
  };
}

/** Public keys of the trusted service accounts, by client_email. */
const trusted = new Map<string, KeyObject>();
/** The account `GET /sim/google/service-account` hands out when none was configured. */
let own: ServiceAccountJson | undefined;
/** Access tokens issued, with their expiry (ms since epoch). */
const issued = new Map<string, number>();
const MAX_TOKENS = 10_000;
let tokenTtlSeconds = 3600;

export function trustServiceAccount(account: Pick<ServiceAccountJson, 'client_email' | 'private_key'>): void {
  trusted.set(account.client_email, createPublicKey(account.private_key));
}

/** `SIMULATOR_GOOGLE_SERVICE_ACCOUNT`: the file of the account the stack gave inference. */
export function trustConfiguredServiceAccount(path = process.env.SIMULATOR_GOOGLE_SERVICE_ACCOUNT): void {
  if (!path) return;
  const account = JSON.parse(readFileSync(path, 'utf8')) as ServiceAccountJson;
  trustServiceAccount(account);
  own = account;
}

/** How long the access tokens the simulator issues live (tests of renewal use short ones). */
export function configureGoogleTokens(options: { ttlSeconds?: number }): void {
  if (options.ttlSeconds !== undefined) tokenTtlSeconds = options.ttlSeconds;
}

/** GET /sim/google/service-account: a trusted service account's JSON whose token_uri is this simulator. */
export function handleServiceAccount(req: IncomingMessage, res: ServerResponse): void {
  if (!own) {
    own = createServiceAccount(`http://${req.headers.host ?? '127.0.0.1'}/google/oauth2/token`);
    trustServiceAccount(own);
  }
  sendJson(res, 200, own);
}

const tokenError = (res: ServerResponse, status: number, error: string, description: string) =>
  sendJson(res, status, { error, error_description: description });

/**
 * POST /google/oauth2/token, Google's OAuth token endpoint for service accounts: a form with
 * `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer` and `assertion`, a JWT signed RS256
 * by a trusted account's key, audience Google's token URL, issued now, expiring within an hour.
 */
export async function handleToken(_req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
  const form = new URLSearchParams(raw.toString('utf8'));
  if (form.get('grant_type') !== JWT_BEARER) return tokenError(res, 400, 'unsupported_grant_type', 'Invalid grant_type.');
  const assertion = form.get('assertion') ?? '';
  const issuer = unverifiedIssuer(assertion);
  const key = issuer ? trusted.get(issuer) : undefined;
  if (!key) return tokenError(res, 400, 'invalid_grant', 'Invalid grant: account not found');
  let scope: unknown;
  try {
    const { payload } = await jwtVerify(assertion, key, {
      algorithms: ['RS256'],
      issuer,
      audience: GOOGLE_TOKEN_AUDIENCE,
      maxTokenAge: '1h',
      requiredClaims: ['iat', 'exp'],
    });
    scope = payload.scope;
  } catch {
    return tokenError(res, 400, 'invalid_grant', 'Invalid JWT Signature.');
  }
  if (typeof scope !== 'string' || !scope.split(' ').includes(CLOUD_PLATFORM_SCOPE))
    return tokenError(res, 400, 'invalid_scope', 'Invalid OAuth scope or ID token audience provided.');
  const token = `ya29.sim-${randomBytes(24).toString('base64url')}`;
  issued.set(token, Date.now() + tokenTtlSeconds * 1000);
  if (issued.size > MAX_TOKENS) issued.delete(issued.keys().next().value!);
  sendJson(res, 200, { access_token: token, expires_in: tokenTtlSeconds, token_type: 'Bearer' });
}

/** The `iss` of a JWT, read before verifying it: only to pick the key to verify it with. */
function unverifiedIssuer(jwt: string): string | undefined {
  try {
    const { iss } = decodeJwt(jwt);
    return typeof iss === 'string' ? iss : undefined;
  } catch {
    return undefined;
  }
}

/** True when the request carries a Bearer token this simulator issued and that has not expired. */
export function hasValidAccessToken(req: IncomingMessage): 'missing' | 'invalid' | 'ok' {
  const token = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
  if (!token) return 'missing';
  const expiry = issued.get(token);
  return expiry !== undefined && expiry > Date.now() ? 'ok' : 'invalid';
}

/** The simulated workload identity pool provider (a GKE/EKS/AKS cluster's OIDC issuer trusted by a Google project). */
export const WORKLOAD_AUDIENCE =
  '//iam.googleapis.com/projects/123456789/locations/global/workloadIdentityPools/sim-pool/providers/sim-cluster';
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const SUBJECT_TOKEN_TYPES = new Set(['urn:ietf:params:oauth:token-type:jwt', 'urn:ietf:params:oauth:token-type:id_token']);
const CLUSTER_ISSUER = 'https://oidc.sim-cluster.example/id/SIMCLUSTER';
const cluster = generateKeyPairSync('rsa', { modulusLength: 2048 });

/**
 * GET /sim/google/workload-identity: what a pod of the simulated cluster holds, its projected
 * service-account token (signed by the cluster's issuer, audience the pool provider as Google's
 * default allowed audience), and the pool provider's audience for the credential configuration.
 */
export async function handleWorkloadIdentity(_req: IncomingMessage, res: ServerResponse): Promise<void> {
  const token = await new SignJWT({ sub: 'system:serviceaccount:gateway:inference' })
    .setProtectedHeader({ alg: 'RS256', kid: 'sim-cluster' })
    .setIssuer(CLUSTER_ISSUER)
    .setAudience(`https:${WORKLOAD_AUDIENCE}`)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(cluster.privateKey);
  sendJson(res, 200, { audience: WORKLOAD_AUDIENCE, subject_token: token });
}

/**
 * POST /google/sts/v1/token, Google's Security Token Service: an OAuth 2.0 token exchange
 * (RFC 8693) of a workload's OIDC token for a federated access token. The pool provider must be
 * the one configured, the subject token signed by the cluster's issuer for that provider's audience
 * and not expired, and the scope cloud-platform.
 */
export async function handleStsToken(_req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
  const form = new URLSearchParams(raw.toString('utf8'));
  if (form.get('grant_type') !== TOKEN_EXCHANGE) return tokenError(res, 400, 'unsupported_grant_type', 'Invalid grant_type.');
  if (form.get('requested_token_type') !== ACCESS_TOKEN_TYPE)
    return tokenError(res, 400, 'invalid_request', 'Invalid requested_token_type.');
  if (!SUBJECT_TOKEN_TYPES.has(form.get('subject_token_type') ?? ''))
    return tokenError(res, 400, 'invalid_request', 'Invalid subject_token_type.');
  if (form.get('audience') !== WORKLOAD_AUDIENCE)
    return tokenError(res, 400, 'invalid_target', 'The target service indicated by the "audience" parameters is invalid.');
  if (!(form.get('scope') ?? '').split(' ').includes(CLOUD_PLATFORM_SCOPE))
    return tokenError(res, 400, 'invalid_scope', 'Invalid OAuth scope.');
  try {
    await jwtVerify(form.get('subject_token') ?? '', cluster.publicKey, {
      algorithms: ['RS256'],
      issuer: CLUSTER_ISSUER,
      audience: `https:${WORKLOAD_AUDIENCE}`,
      requiredClaims: ['sub', 'exp'],
    });
  } catch {
    return tokenError(
      res,
      400,
      'invalid_grant',
      'The provided subject token is invalid: its signature, issuer, audience or expiry is wrong.',
    );
  }
  const token = `ya29.sim-federated-${randomBytes(24).toString('base64url')}`;
  issued.set(token, Date.now() + tokenTtlSeconds * 1000);
  if (issued.size > MAX_TOKENS) issued.delete(issued.keys().next().value!);
  sendJson(res, 200, { access_token: token, issued_token_type: ACCESS_TOKEN_TYPE, token_type: 'Bearer', expires_in: tokenTtlSeconds });
}
