import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import type { ChatCallContext } from '../provider-adapter.js';

/** A BYOK Azure credential may carry its own resource endpoint (and deployment) beside the key. */
export interface AzureOverrides {
  /** `https://{resource}.openai.azure.com` */
  azureEndpoint?: string;
  /** The deployment name, in place of the catalog's `upstreamModel`. */
  deployment?: string;
}

/**
 * Where an Azure OpenAI call goes and how it is authenticated: a deployment by name under the
 * provider's `api-version` (`/openai/deployments/{deployment}/{operation}?api-version=…`), or the
 * v1 API (`/openai/v1/{operation}`, the deployment as `model`) when the catalog names no version.
 * The key travels in Azure's `api-key` header.
 */
export function azureTarget(
  endpoint: RoutableEndpoint,
  context: ChatCallContext & AzureOverrides,
  operation: 'chat/completions' | 'embeddings',
): { url: string; headers: Record<string, string>; deployment: string } {
  const { provider } = endpoint;
  const base = (context.azureEndpoint ?? provider.baseUrl).replace(/\/+$/, '');
  const deployment = context.deployment ?? endpoint.upstreamModel;
  const url = provider.apiVersion
    ? `${base}/openai/deployments/${encodeURIComponent(deployment)}/${operation}?api-version=${encodeURIComponent(provider.apiVersion)}`
    : `${base}/openai/v1/${operation}`;
  return { url, headers: { 'api-key': context.apiKey ?? provider.apiKey }, deployment };
}
