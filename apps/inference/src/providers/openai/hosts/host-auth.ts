import type { ProviderConfig } from '../../../catalog/catalog.schema.js';
import { hostProfile } from './openai-hosts.js';

/**
 * The headers that authenticate a call to an OpenAI-compatible provider: the catalog's `auth`
 * (Bearer, a header of its own name, or none) or else its host's default, then its static
 * `headers` (OpenRouter's HTTP-Referer / X-Title). `apiKey` is a BYOK key when the workspace
 * brought one, else the provider's; an empty key sends nothing where the host allows it.
 */
export function hostAuthHeaders(provider: ProviderConfig, apiKey: string): Record<string, string> {
  // A header whose variable is unset (`${OPENROUTER_TITLE:-}`) is left out rather than sent empty.
  const headers: Record<string, string> = Object.fromEntries(Object.entries(provider.headers ?? {}).filter(([, value]) => value !== ''));
  const kind = provider.auth?.kind ?? defaultKind(provider);
  if (kind === 'header') headers[provider.auth!.header!.toLowerCase()] = apiKey;
  else if (kind === 'bearer') headers.authorization = `Bearer ${apiKey}`;
  else if (kind === 'optional-bearer' && apiKey !== '') headers.authorization = `Bearer ${apiKey}`;
  return headers;
}

function defaultKind(provider: ProviderConfig): 'bearer' | 'optional-bearer' | 'none' {
  const auth = hostProfile(provider.host).auth;
  return auth === 'optional' ? 'optional-bearer' : auth;
}
