import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { interpolateEnv, loadCatalog, parseCatalog } from './catalog.loader.js';

const provider = { id: 'p', name: 'P', format: 'openai', baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k' };
const model = {
  id: 'a/b',
  name: 'B',
  contextLength: 10,
  supportedParameters: [],
  endpoints: [{ provider: 'p', upstreamModel: 'b', pricing: { prompt: '0.1', completion: '0.2' } }],
};

describe('model catalog', () => {
  it('loads the catalog that ships with the service', () => {
    const catalog = loadCatalog(fileURLToPath(new URL('../../catalog/models.json', import.meta.url)), {});
    expect(catalog.models.map((entry) => entry.id)).toContain('sim/gpt-4o-mini');
    expect(catalog.providers.find((entry) => entry.id === 'simulator-openai')?.baseUrl).toBe('http://127.0.0.1:8790/openai/v1');
  });

  it('reads values from the environment with defaults', () => {
    expect(interpolateEnv('${A:-x}/${B}', { B: 'y' })).toBe('x/y');
    expect(interpolateEnv('${A:-x}', { A: 'set' })).toBe('set');
    const directory = mkdtempSync(join(tmpdir(), 'catalog-'));
    writeFileSync(join(directory, 'models.json'), JSON.stringify({ providers: [{ ...provider, apiKey: '${KEY:-}' }], models: [model] }));
    expect(loadCatalog(join(directory, 'models.json'), { KEY: 'secret' }).providers[0]!.apiKey).toBe('secret');
  });

  it('lists every problem at once', () => {
    const broken = {
      providers: [provider, { ...provider, format: 'smoke-signals' }],
      models: [
        {
          ...model,
          contextLength: 0,
          endpoints: [{ provider: 'ghost', upstreamModel: 'b', pricing: { prompt: '-1', completion: '1e-3' } }],
        },
      ],
    };
    expect(() => parseCatalog(broken)).toThrowError(
      /format[\s\S]*contextLength[\s\S]*prompt[\s\S]*completion[\s\S]*duplicate id p[\s\S]*unknown provider ghost/,
    );
  });

  it('takes bedrock providers by region (the SDK endpoint when baseUrl is empty) and azure ones with an api-version', () => {
    const bedrock = { id: 'b', name: 'B', format: 'bedrock', baseUrl: '', apiKey: '', region: 'us-east-1' };
    const azure = { id: 'z', name: 'Z', format: 'azure', baseUrl: 'https://r.openai.azure.com', apiKey: 'k', apiVersion: '2024-10-21' };
    const ok = parseCatalog({ providers: [bedrock, azure], models: [{ ...model, endpoints: [{ ...model.endpoints[0], provider: 'b' }] }] });
    expect(ok.providers.map((entry) => entry.format)).toEqual(['bedrock', 'azure']);
    expect(() => parseCatalog({ providers: [{ ...bedrock, region: undefined }], models: [] })).toThrow(/a bedrock provider needs a region/);
    expect(() => parseCatalog({ providers: [{ ...provider, baseUrl: '' }], models: [] })).toThrow(/baseUrl/);
    expect(() => parseCatalog({ providers: [{ ...provider, region: 'us-east-1' }], models: [] })).toThrow(
      /region and guardrail are for bedrock/,
    );
    expect(() => parseCatalog({ providers: [{ ...azure, apiVersion: 'latest' }], models: [] })).toThrow(/apiVersion/);
    const batch = { ...model.endpoints[0], provider: 'b', batch: { pricing: { prompt: '0.1', completion: '0.2' } } };
    expect(() => parseCatalog({ providers: [bedrock], models: [{ ...model, endpoints: [batch] }] })).toThrow(
      /batch needs an openai or anthropic provider/,
    );
  });
});
