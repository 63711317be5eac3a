import type { RoutableEndpoint, RoutableModel } from '../catalog/catalog.service.js';
import type { ProviderFormat } from '../catalog/catalog.schema.js';
import { Prisma } from '../generated/prisma/client.js';

/** A catalog endpoint for unit tests: free, on a provider that needs no network. */
export function testEndpoint(
  upstreamModel: string,
  supportedParameters: string[] = [],
  format: ProviderFormat = 'openai',
): RoutableEndpoint {
  return {
    provider: { id: 'test', name: 'Test', format, baseUrl: 'http://upstream.invalid', apiKey: 'sk-test' },
    upstreamModel,
    pricing: { prompt: new Prisma.Decimal(0), completion: new Prisma.Decimal(0), cachedPrompt: new Prisma.Decimal(0) },
    supportedParameters: new Set(supportedParameters),
  };
}

/** The model of one endpoint, for unit tests that route or plan on it. */
export function testModel(endpoint: RoutableEndpoint, id = 'test/m'): RoutableModel {
  return { config: { id, name: id, contextLength: 1000, supportedParameters: [], endpoints: [] }, endpoints: [endpoint] };
}
