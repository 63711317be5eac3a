import { GatewayError } from '@gw/errors';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import type { ChatCallContext } from '../provider-adapter.js';

/** Where an Azure OpenAI call goes and with which key. */
export interface AzureTarget {
  url: string;
  headers: Record<string, string>;
  deployment: string;
  /** The URL comes from a workspace (its credential or its own endpoint): connect only to public addresses. */
  tenantEndpoint: boolean;
}

/**
 * A BYOK Azure credential: the key alone (the catalog's resource and deployment), or
 * `{"apiKey", "endpoint"?, "deployment"?}`: the workspace's own resource
 * (`https://{resource}.openai.azure.com`, or a path behind API Management) and deployment name.
 */
function byokSecret(secret: string): { apiKey: string; endpoint?: string; deployment?: string } {
  if (!secret.trimStart().startsWith('{')) return { apiKey: secret };
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(secret) as Record<string, unknown>;
  } catch {
    throw GatewayError.badRequest('The Azure BYOK credential is neither a key nor {"apiKey", "endpoint", "deployment"} JSON');
  }
  const { apiKey, endpoint, deployment } = parsed;
  if (typeof apiKey !== 'string' || apiKey === '') throw GatewayError.badRequest('The Azure BYOK credential needs an apiKey');
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
  return { apiKey, endpoint: endpoint as string | undefined, deployment: deployment as string | undefined };
}

/**
 * A deployment by name under the provider's `api-version`
 * (`/openai/deployments/{deployment}/{operation}?api-version=…`), or the v1 API
 * (`/openai/v1/{operation}`, the deployment as `model`) when the catalog names no version.
 * The key travels in Azure's `api-key` header.
 */
export function azureTarget(
  endpoint: RoutableEndpoint,
  context: ChatCallContext,
  operation: 'chat/completions' | 'embeddings',
): AzureTarget {
  const { provider } = endpoint;
  const byok = context.apiKey === undefined ? undefined : byokSecret(context.apiKey);
  const base = (byok?.endpoint ?? provider.baseUrl).replace(/\/+$/, '');
  const deployment = byok?.deployment ?? endpoint.upstreamModel;
  const url = provider.apiVersion
    ? `${base}/openai/deployments/${encodeURIComponent(deployment)}/${operation}?api-version=${encodeURIComponent(provider.apiVersion)}`
    : `${base}/openai/v1/${operation}`;
  return {
    url,
    headers: { 'api-key': byok?.apiKey ?? provider.apiKey },
    deployment,
    tenantEndpoint: byok?.endpoint !== undefined || endpoint.tenant === true,
  };
}
