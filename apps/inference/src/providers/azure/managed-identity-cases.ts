import { validateEnv } from '@gw/config';
import type { RoutableEndpoint } from '../../catalog/catalog.service.js';
import { CONFORMANCE_PRICING } from '../conformance/conformance-cases.js';
import { InferenceEnv } from '../../env.js';
import type { UpstreamClient } from '../../upstream/upstream-client.js';
import { AzureOpenAiAdapter } from './azure.adapter.js';
import { EntraAccessTokens } from './entra-access-tokens.js';

/** Test support: an Azure v1-API provider of the simulator authenticated with the host's managed identity. */
export function managedIdentityEndpoint(simulatorUrl: string): RoutableEndpoint {
  return {
    provider: {
      id: 'sim-azure-mi',
      name: 'Simulator',
      format: 'azure',
      baseUrl: `${simulatorUrl}/azure`,
      apiKey: '',
      managedIdentity: true,
    },
    upstreamModel: 'gpt-4o-mini',
    pricing: CONFORMANCE_PRICING,
    supportedParameters: new Set<string>(),
  };
}

/** The adapter with tokens of the managed identity `clientId` names (empty: system-assigned). */
export function managedIdentityAdapter(upstream: UpstreamClient, clientId = ''): AzureOpenAiAdapter {
  const env = validateEnv(InferenceEnv, { DATABASE_URL: 'postgresql://unused/x', AZURE_MANAGED_IDENTITY_CLIENT_ID: clientId });
  return new AzureOpenAiAdapter(upstream, new EntraAccessTokens(env));
}

export const HELLO = { model: 'sim/azure', messages: [{ role: 'user', content: 'Say hello' }] };
