import { GatewayError } from '@gw/errors';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import type { ChatCallContext } from '../provider-adapter.js';
import type { EntraAccessTokens, EntraApp } from './entra-access-tokens.js';

/** Where an Azure OpenAI call goes and with which credential. */
export interface AzureTarget {
  url: string;
  headers: Record<string, string>;
  deployment: string;
  /** The URL comes from a workspace (its credential or its own endpoint): connect only to public addresses. */
  tenantEndpoint: boolean;
}

/** What is called: a deployment's chat completions or embeddings, or the resource's Responses API (the deployment as `model`). */
export type AzureOperation = 'chat/completions' | 'embeddings' | 'responses';

interface ByokAzure {
  apiKey?: string;
  app?: Omit<EntraApp, 'authorityHost'>;
  endpoint?: string;
  deployment?: string;
}

const BYOK_SHAPE =
  'a key, {"apiKey", "endpoint"?, "deployment"?} or {"tenantId", "clientId", "clientSecret", "endpoint"?, "deployment"?} JSON';

/**
 * A BYOK Azure credential: the key alone (the catalog's resource and deployment), or JSON with
 * an `apiKey` or an Entra ID app (`tenantId`, `clientId`, `clientSecret`), and optionally the
 * workspace's own resource (`https://{resource}.openai.azure.com`, or a path behind API
 * Management) and deployment name. The authority stays the catalog's: a tenant never picks where
 * the gateway sends a client secret.
 */
function byokSecret(secret: string): ByokAzure {
  if (!secret.trimStart().startsWith('{')) return { apiKey: secret };
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(secret) as Record<string, unknown>;
  } catch {
    throw GatewayError.badRequest(`The Azure BYOK credential is not ${BYOK_SHAPE}`);
  }
  const { apiKey, tenantId, clientId, clientSecret, endpoint, deployment } = parsed;
  const app =
    tenantId === undefined && clientId === undefined && clientSecret === undefined
      ? undefined
      : typeof tenantId === 'string' &&
          /^[A-Za-z0-9.-]{1,128}$/.test(tenantId) &&
          typeof clientId === 'string' &&
          /^[A-Za-z0-9-]{1,64}$/.test(clientId) &&
          typeof clientSecret === 'string' &&
          clientSecret !== ''
        ? { tenantId, clientId, clientSecret }
        : undefined;
  if ((tenantId !== undefined || clientId !== undefined || clientSecret !== undefined) && !app)
    throw GatewayError.badRequest('The Azure BYOK credential needs a tenantId, a clientId and a clientSecret together');
  if (app && apiKey !== undefined) throw GatewayError.badRequest('The Azure BYOK credential has an apiKey or an Entra ID app, not both');
  if (!app && (typeof apiKey !== 'string' || apiKey === ''))
    throw GatewayError.badRequest(`The Azure BYOK credential is not ${BYOK_SHAPE}`);
  if (endpoint !== undefined) {
    const url = typeof endpoint === 'string' && URL.canParse(endpoint) ? new URL(endpoint) : undefined;
    if (
      !url ||
      (url.protocol !== 'https:' && url.protocol !== 'http:') ||
      url.username ||
      url.password ||
      url.search !== '' ||
      url.hash !== ''
    ) {
      throw GatewayError.badRequest(
        'The Azure BYOK credential endpoint must be an http(s) URL such as https://{resource}.openai.azure.com (a path is kept, for API Management in front)',
      );
    }
  }
  if (deployment !== undefined && (typeof deployment !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(deployment)))
    throw GatewayError.badRequest('The Azure BYOK credential deployment must be a deployment name');
  return {
    ...(app ? { app } : { apiKey: apiKey as string }),
    endpoint: endpoint as string | undefined,
    deployment: deployment as string | undefined,
  };
}

/**
 * A deployment by name under the provider's `api-version`
 * (`/openai/deployments/{deployment}/{operation}?api-version=…`; the Responses API, which has no
 * deployment path: `/openai/responses?api-version=…`), or the v1 API (`/openai/v1/{operation}`,
 * the deployment as `model`) when the catalog names no version.
 * The credential is Azure's `api-key` header, or an Entra ID bearer token for the provider's
 * (or the workspace's) app.
 */
export async function azureTarget(
  endpoint: RoutableEndpoint,
  context: ChatCallContext,
  operation: AzureOperation,
  tokens: EntraAccessTokens,
): Promise<AzureTarget> {
  const { provider } = endpoint;
  const byok = context.apiKey === undefined ? undefined : byokSecret(context.apiKey);
  const base = (byok?.endpoint ?? provider.baseUrl).replace(/\/+$/, '');
  const deployment = byok?.deployment ?? endpoint.upstreamModel;
  const version = provider.apiVersion && `?api-version=${encodeURIComponent(provider.apiVersion)}`;
  const url = !version
    ? `${base}/openai/v1/${operation}`
    : operation === 'responses'
      ? `${base}/openai/responses${version}`
      : `${base}/openai/deployments/${encodeURIComponent(deployment)}/${operation}${version}`;
  const authorityHost = provider.entra?.authorityHost;
  const app: EntraApp | undefined = byok
    ? byok.app && { ...byok.app, authorityHost }
    : provider.entra && {
        tenantId: provider.entra.tenantId,
        clientId: provider.entra.clientId,
        clientSecret: provider.apiKey,
        authorityHost,
      };
  // The host's managed identity serves the catalog's provider only: a workspace's own key never falls back to it.
  const headers: Record<string, string> = app
    ? { authorization: `Bearer ${await tokens.token(provider.id, app, context.signal)}` }
    : !byok && provider.managedIdentity
      ? { authorization: `Bearer ${await tokens.managedIdentityToken(provider.id, context.signal)}` }
      : { 'api-key': byok?.apiKey ?? provider.apiKey };
  return { url, headers, deployment, tenantEndpoint: byok?.endpoint !== undefined || endpoint.tenant === true };
}
