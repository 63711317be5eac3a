import { validateDto, WORKSPACE_MODEL_ID_PATTERN, WorkspaceModelDto } from '@gw/contracts';
import { describe, expect, it } from 'vitest';
import { parseCatalog } from './catalog.loader.js';
import { workspaceModelsOf } from './workspace-models.js';

const BYOK_ID = '6f1c1f53-0b4e-4a57-9d0b-5b2d3c1f9a10';

/** An Azure endpoint with every field the catalog shares at the edge the API allows. */
const edgeEndpoint = {
  format: 'azure',
  baseUrl: 'https://llm.example.com/v1',
  upstreamModel: 'edge',
  apiVersion: '2025-04-01-preview',
  credentials: [{ byokId: BYOK_ID, weight: 1000 }],
  priority: 100,
  weight: 0,
  pricing: { prompt: '123456789012.12345678901234567890', completion: '0' },
};
type Endpoint = Omit<typeof edgeEndpoint, 'credentials'> & { credentials: Array<{ byokId: string; weight: number }> };
const workspaceModel = (endpoint: Endpoint) => ({
  name: 'Edge',
  contextLength: 100_000_000,
  maxCompletionTokens: 1,
  endpoints: [endpoint],
});

/** The same model as an operator would write it in the catalog, with the provider routing makes of it. */
async function asCatalog(id: string, endpoint: Endpoint): Promise<unknown> {
  const model = workspaceModel(endpoint);
  const { models } = await workspaceModelsOf('ws', [{ id, model: workspaceModel(edgeEndpoint) as never }]);
  // `auth` is how routing calls a workspace's server (bearer on its BYOK key); the catalog states no auth for azure.
  const { auth: _bearer, ...provider } = models.get(id)!.endpoints[0]!.provider;
  return {
    providers: [{ ...provider, apiKey: 'k', apiVersion: endpoint.apiVersion }],
    models: [
      {
        id,
        name: model.name,
        contextLength: model.contextLength,
        maxCompletionTokens: model.maxCompletionTokens,
        supportedParameters: [],
        endpoints: [
          {
            provider: provider.id,
            upstreamModel: endpoint.upstreamModel,
            pricing: endpoint.pricing,
            priority: endpoint.priority,
            weight: endpoint.weight,
            credentials: endpoint.credentials.map(({ weight }) => ({ apiKey: 'k', weight })),
          },
        ],
      },
    ],
  };
}

describe("a workspace model and the operator's catalog keep the same rules (model-rules.ts)", () => {
  it('a workspace model at every bound the API allows is a valid catalog entry', async () => {
    const id = `a${'/'.repeat(127)}`;
    expect(WORKSPACE_MODEL_ID_PATTERN.test(id)).toBe(true);
    await validateDto(WorkspaceModelDto, workspaceModel(edgeEndpoint), 'reject');
    expect(parseCatalog(await asCatalog(id, edgeEndpoint)).models[0]!.endpoints[0]).toMatchObject({ priority: 100, weight: 0 });
  });

  it.each([
    ['priority 101', { priority: 101 }, 'priority'],
    ['weight 1001', { weight: 1001 }, 'weight'],
    ['a credential weight of -1', { credentials: [{ byokId: BYOK_ID, weight: -1 }] }, 'weight'],
    ['api-version 2025-4-1', { apiVersion: '2025-4-1' }, 'apiVersion'],
    ['a price of 1e-6', { pricing: { prompt: '1e-6', completion: '0' } }, 'prompt'],
  ])('both refuse %s', async (_, change, field) => {
    const endpoint = { ...edgeEndpoint, ...change };
    await expect(validateDto(WorkspaceModelDto, workspaceModel(endpoint), 'reject')).rejects.toThrow(field);
    await expect(asCatalog('a/b', endpoint).then(parseCatalog)).rejects.toThrow(field);
  });
});
