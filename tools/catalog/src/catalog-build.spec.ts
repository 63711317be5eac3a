import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { format } from 'prettier';
import { describe, expect, it } from 'vitest';
import { buildCatalog } from './catalog-build.ts';
import { decimalTimes, perToken } from './decimal.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SHIPPED = fileURLToPath(new URL('../../../apps/inference/catalog/models.json', import.meta.url));

interface Endpoint {
  provider: string;
  pricing: { prompt: string; completion: string };
  source?: { url: string; read: string };
}

describe('the generated catalog', () => {
  it('is what the committed sources generate (no hand edit, no stale file)', async () => {
    const generated = await format(JSON.stringify(buildCatalog(ROOT)), { parser: 'json', printWidth: 140 });
    expect(readFileSync(SHIPPED, 'utf8')).toBe(generated);
  });

  it('names a price sheet and the day it was read for every endpoint, and no endpoint is free', () => {
    const catalog = buildCatalog(ROOT) as { models: Array<{ id: string; endpoints: Endpoint[] }> };
    for (const model of catalog.models) {
      for (const endpoint of model.endpoints) {
        const where = `${model.id} on ${endpoint.provider}`;
        expect(endpoint.source?.url, where).toMatch(/^https:\/\//);
        expect(endpoint.source?.read, where).toMatch(/^\d{4}-\d{2}-\d{2}$/);
        expect(Number(endpoint.pricing.prompt) + Number(endpoint.pricing.completion), where).toBeGreaterThan(0);
      }
    }
  });

  it('lists every provider the gateway speaks', () => {
    const catalog = buildCatalog(ROOT) as { providers: Array<{ id: string; host?: string }> };
    const hosts = catalog.providers.map((provider) => provider.host).filter(Boolean);
    expect(hosts.sort()).toEqual(
      [
        'cerebras',
        'deepseek',
        'fireworks',
        'groq',
        'llamacpp',
        'lmstudio',
        'mistral',
        'ollama',
        'openrouter',
        'perplexity',
        'together',
        'vllm',
        'xai',
      ].sort(),
    );
  });
});

describe('exact decimals', () => {
  it('turns a price per million into a price per token without a float', () => {
    expect(perToken('0.075')).toBe('0.000000075');
    expect(perToken('22.50')).toBe('0.0000225');
    expect(perToken('0.003625')).toBe('0.000000003625');
    expect(perToken('15')).toBe('0.000015');
  });

  it('scales by a batch share exactly', () => {
    expect(decimalTimes('0.000000075', '0.5')).toBe('0.0000000375');
    expect(decimalTimes('0.0000225', '0.5')).toBe('0.00001125');
  });
});
