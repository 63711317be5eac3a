import type { Principal, ResolvedByokCredential } from '@gw/contracts';
import { validateEnv } from '@gw/config';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { CatalogService, type RoutableModel } from '../catalog/catalog.service.js';
import { testEndpoint, testModel } from '../testing/test-endpoint.js';
import { InferenceEnv } from '../env.js';
import type { ByokCredentialsService } from '../resolution/byok-credentials.service.js';
import { ModelsController } from './models.controller.js';

const SHIPPED = fileURLToPath(new URL('../../catalog/models.json', import.meta.url));
const pricing = { prompt: '0.000001', completion: '0.000002' };
const CATALOG = {
  providers: [
    { id: 'keyed', name: 'Keyed', format: 'openai', baseUrl: 'https://keyed.example/v1', apiKey: 'k' },
    { id: 'groq', name: 'Groq', format: 'openai', host: 'groq', baseUrl: 'https://api.groq.com/openai/v1', apiKey: '' },
  ],
  models: [
    {
      id: 'a/keyed',
      name: 'K',
      contextLength: 10,
      supportedParameters: [],
      endpoints: [{ provider: 'keyed', upstreamModel: 'k', pricing }],
    },
    {
      id: 'a/groq',
      name: 'G',
      contextLength: 10,
      maxCompletionTokens: 5,
      supportedParameters: [],
      endpoints: [{ provider: 'groq', upstreamModel: 'g', pricing }],
    },
    {
      id: 'a/groq-two',
      name: 'G2',
      contextLength: 10,
      supportedParameters: [],
      endpoints: [{ provider: 'groq', upstreamModel: 'g2', pricing }],
    },
  ],
};

const principal = { workspaceId: 'w', keyHash: 'hash-a', userId: 'u' } as Principal;
const credential = (extra: Partial<ResolvedByokCredential> = {}): ResolvedByokCredential => ({
  id: 'c',
  provider: 'groq',
  apiKey: 'gsk',
  isFallback: false,
  isByokOnly: false,
  isRequired: false,
  sortOrder: 0,
  allowedApiKeyHashes: null,
  allowedModels: null,
  allowedUserIds: null,
  ...extra,
});

function controller(
  paths: string[],
  credentials: () => Promise<ResolvedByokCredential[]>,
  models: ReadonlyMap<string, RoutableModel> = new Map(),
): ModelsController {
  const env = validateEnv(InferenceEnv, { DATABASE_URL: 'postgresql://unused/x', MODEL_CATALOG_PATHS: paths.join(',') });
  const routingOf = async () => ({ credentials: await credentials(), models });
  return new ModelsController(new CatalogService(env), { routingOf } as unknown as ByokCredentialsService);
}

function catalogFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'models-')), 'models.json');
  writeFileSync(path, JSON.stringify(CATALOG));
  return path;
}

const ids = async (subject: ModelsController) => (await subject.list({ principal })).data.map((model) => model.id);

describe('GET /v1/models: a provider is listed when the gateway or the workspace holds a credential for it', () => {
  it('lists a provider without a gateway key only for a workspace with its own key, under its allow-lists', async () => {
    const path = catalogFile();
    expect(await ids(controller([path], async () => []))).toEqual(['a/keyed']);
    expect(await ids(controller([path], async () => [credential()]))).toEqual(['a/keyed', 'a/groq', 'a/groq-two']);
    expect(await ids(controller([path], async () => [credential({ allowedModels: ['a/groq'] })]))).toEqual(['a/keyed', 'a/groq']);
    expect(await ids(controller([path], async () => [credential({ allowedApiKeyHashes: ['hash-b'] })]))).toEqual(['a/keyed']);
  });

  it("still answers with the gateway's own models when the workspace's credentials cannot be read", async () => {
    const subject = controller([catalogFile()], () => Promise.reject(new Error('management unreachable')));
    expect(await ids(subject)).toEqual(['a/keyed']);
  });

  it('shows the output cap and the prices beyond input and output where the catalog has them', async () => {
    const listed = await controller([catalogFile()], async () => [credential()]).list({ principal });
    expect(listed.data.find((model) => model.id === 'a/groq')?.top_provider.max_completion_tokens).toBe(5);
    const shipped = await controller([SHIPPED], async () => [credential({ provider: 'perplexity' })]).list({ principal });
    expect(shipped.data.find((model) => model.id === 'perplexity/sonar')?.pricing).toMatchObject({ prompt: '0.000001', request: '0.005' });
  });

  it("lists the workspace's own models first, in place of a catalog model of the same id", async () => {
    const own = new Map([
      ['acme/llama', testModel(testEndpoint('llama'), 'acme/llama')],
      ['a/keyed', testModel(testEndpoint('keyed-here'), 'a/keyed')],
    ]);
    const listed = await controller([catalogFile()], async () => [], own).list({ principal });
    expect(listed.data.map((model) => [model.id, model.name])).toEqual([
      ['acme/llama', 'acme/llama'],
      ['a/keyed', 'a/keyed'],
    ]);
    expect(listed.total_count).toBe(2);
  });

  it('the shipped catalog lists nothing without any provider key', async () => {
    const keyless = await ids(controller([SHIPPED], async () => []));
    // Only keyless self-hosted servers (Ollama, LM Studio) count as configured, and the shipped catalog gives them no model.
    expect(keyless).toEqual([]);
  });
});
