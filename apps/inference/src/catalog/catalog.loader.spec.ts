import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { catalogPaths, interpolateEnv, loadCatalog, parseCatalog } from './catalog.loader.js';

const provider = { id: 'p', name: 'P', format: 'openai', baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k' };
const model = {
  id: 'a/b',
  name: 'B',
  contextLength: 10,
  supportedParameters: [],
  endpoints: [{ provider: 'p', upstreamModel: 'b', pricing: { prompt: '0.1', completion: '0.2' } }],
};

const SHIPPED = fileURLToPath(new URL('../../catalog/models.json', import.meta.url));
const DEV = fileURLToPath(new URL('../../catalog/dev-models.json', import.meta.url));

function catalogFile(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'catalog-')), 'models.json');
  writeFileSync(path, JSON.stringify(content));
  return path;
}

describe('model catalog', () => {
  it('ships real providers and models only; the simulator and its sim/* fixtures are in the dev catalog', () => {
    const shipped = loadCatalog([SHIPPED], {});
    expect(shipped.models.map((entry) => entry.id)).toContain('openai/gpt-4o-mini');
    expect(shipped.models.filter((entry) => entry.id.startsWith('sim/'))).toEqual([]);
    expect(shipped.providers.filter((entry) => entry.id.startsWith('simulator') || entry.baseUrl.includes('SIMULATOR'))).toEqual([]);
    const dev = loadCatalog([SHIPPED, DEV], {});
    expect(dev.models.map((entry) => entry.id)).toEqual(expect.arrayContaining(['openai/gpt-4o-mini', 'sim/gpt-4o-mini']));
    expect(dev.providers.find((entry) => entry.id === 'simulator-openai')?.baseUrl).toBe('http://127.0.0.1:8790/openai/v1');
  });

  it("merges its files in order; a later file may use an earlier one's provider", () => {
    const second = { ...model, id: 'a/c' };
    const catalog = loadCatalog(
      [catalogFile({ providers: [provider], models: [model] }), catalogFile({ providers: [], models: [second] })],
      {},
    );
    expect(catalog.models.map((entry) => entry.id)).toEqual(['a/b', 'a/c']);
    expect(catalogPaths(' one.json, two.json ,,')).toEqual(['one.json', 'two.json']);
  });

  it('refuses a provider or model id in two files, naming both files', () => {
    const first = catalogFile({ providers: [provider], models: [model] });
    const second = catalogFile({ providers: [{ ...provider, name: 'Other' }], models: [{ ...model, name: 'Other' }] });
    const attempt = () => loadCatalog([first, second], {});
    expect(attempt).toThrow(`provider p is in both ${first} and ${second}`);
    expect(attempt).toThrow(`model a/b is in both ${first} and ${second}`);
  });

  it('fails at start on a missing or unreadable file, or on no file at all', () => {
    const missing = join(tmpdir(), 'no-such-dir-for-catalog', 'dev-models.json');
    expect(() => loadCatalog([SHIPPED, missing], {})).toThrow(`cannot read ${missing}`);
    expect(() => loadCatalog([catalogFile({ models: [] })], {})).toThrow(/a providers array and a models array/);
    expect(() => loadCatalog([], {})).toThrow(/no catalog file/);
  });

  it('reads values from the environment with defaults', () => {
    expect(interpolateEnv('${A:-x}/${B}', { B: 'y' })).toBe('x/y');
    expect(interpolateEnv('${A:-x}', { A: 'set' })).toBe('set');
    const path = catalogFile({ providers: [{ ...provider, apiKey: '${KEY:-}' }], models: [model] });
    expect(loadCatalog([path], { KEY: 'secret' }).providers[0]!.apiKey).toBe('secret');
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
