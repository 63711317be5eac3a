import type { AdminCatalogChangeRequest } from '@gw/contracts';
import { describe, expect, it } from 'vitest';
import { applyCatalogChange, validateCatalogDocument } from './catalog-edits.js';

const provider = { id: 'p', name: 'P', format: 'openai', baseUrl: 'https://p.example/v1', apiKey: 'k' };
const model = {
  id: 'a/m',
  name: 'M',
  contextLength: 1000,
  supportedParameters: [],
  endpoints: [{ provider: 'p', upstreamModel: 'm', pricing: { prompt: '1', completion: '2' } }],
};
const document = { providers: [provider], models: [model] };
const change = (fields: Partial<AdminCatalogChangeRequest>): AdminCatalogChangeRequest => ({
  operator: 'ops',
  action: 'import',
  dryRun: false,
  ...fields,
});

describe('applyCatalogChange', () => {
  it('replaces an entry where it stands and appends a new one, the path id first', () => {
    const renamed = applyCatalogChange(document, change({ action: 'put_model', id: 'a/m', body: { ...model, id: undefined, name: 'N' } }));
    expect(renamed.models).toEqual([{ ...model, name: 'N' }]);
    const added = applyCatalogChange(document, change({ action: 'put_provider', id: 'q', body: { name: 'Q', format: 'openai' } }));
    expect(added.providers).toEqual([provider, { id: 'q', name: 'Q', format: 'openai' }]);
    expect(document.providers).toEqual([provider]);
  });

  it('refuses a body id other than the path id, a delete of what is not there, an import that is no catalog', () => {
    expect(() => applyCatalogChange(document, change({ action: 'put_provider', id: 'q', body: { id: 'p' } }))).toThrow(
      expect.objectContaining({ status: 400 }),
    );
    expect(() => applyCatalogChange(document, change({ action: 'delete_model', id: 'a/x' }))).toThrow(
      expect.objectContaining({ status: 404 }),
    );
    expect(() => applyCatalogChange(document, change({ action: 'import', body: { models: [] } }))).toThrow(
      expect.objectContaining({ status: 400 }),
    );
  });
});

describe('validateCatalogDocument', () => {
  it('answers 400 naming the field by the model id, as param too', () => {
    const bad = {
      providers: [provider],
      models: [{ ...model, endpoints: [{ ...model.endpoints[0], pricing: { prompt: 'free', completion: '2' } }] }],
    };
    let caught: unknown;
    try {
      validateCatalogDocument(bad);
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({ status: 400, metadata: { param: 'catalog.models.a/m.endpoints.0.pricing.prompt' } });
    expect((caught as Error).message).toContain('catalog.models.a/m.endpoints.0.pricing.prompt');
  });

  it('refuses a deleted provider a model still uses, an alias naming another model, a replacement that is not a model', () => {
    expect(() => validateCatalogDocument({ providers: [], models: [model] })).toThrow(/catalog.models.a\/m: unknown provider p/);
    const twin = { ...model, id: 'a/n', aliases: ['a/m'] };
    expect(() => validateCatalogDocument({ providers: [provider], models: [model, twin] })).toThrow(/a\/m already names a\/m/);
    const deprecated = { ...model, deprecation: { sunset: '2027-01-01', replacement: 'a/none' } };
    expect(() => validateCatalogDocument({ providers: [provider], models: [deprecated] })).toThrow(/deprecation.replacement: a\/none/);
    expect(
      validateCatalogDocument({ providers: [provider], models: [{ ...deprecated, deprecation: { sunset: '2027-01-01' } }] }).models,
    ).toHaveLength(1);
  });
});
