import { describe, expect, it } from 'vitest';
import { diffCatalogs } from './catalog-diff.js';

const provider = { id: 'p', name: 'P', format: 'openai', baseUrl: 'https://p.example/v1', apiKey: '${P_KEY}' };
const model = (prompt: string) => ({
  id: 'a/m',
  name: 'M',
  endpoints: [{ provider: 'p', upstreamModel: 'm', pricing: { prompt, completion: '2' } }],
});

describe('diffCatalogs', () => {
  it('names providers and models by id and each changed field by its path', () => {
    const before = { providers: [provider], models: [model('1')] };
    const after = { providers: [provider, { ...provider, id: 'q' }], models: [{ ...model('1.5'), aliases: ['m'] }] };
    expect(diffCatalogs(before, after)).toEqual([
      { op: 'add', path: 'providers[q]', after: { ...provider, id: 'q' } },
      { op: 'change', path: 'models[a/m].endpoints[0].pricing.prompt', before: '1', after: '1.5' },
      { op: 'add', path: 'models[a/m].aliases', after: ['m'] },
    ]);
  });

  it('is empty for equal documents, and records removals with what was removed', () => {
    const document = { providers: [provider], models: [model('1')] };
    expect(diffCatalogs(document, structuredClone(document))).toEqual([]);
    expect(diffCatalogs(document, { providers: [provider], models: [] })).toEqual([
      { op: 'remove', path: 'models[a/m]', before: model('1') },
    ]);
  });

  it('never records a literal API key, only that it changed; references are kept', () => {
    const literal = { ...provider, apiKey: 'sk-live-secret' };
    const entries = diffCatalogs({ providers: [provider] }, { providers: [literal] });
    expect(entries).toEqual([{ op: 'change', path: 'providers[p].apiKey', before: '${P_KEY}', after: '[redacted]' }]);
    expect(JSON.stringify(diffCatalogs({ providers: [] }, { providers: [literal] }))).not.toContain('sk-live-secret');
  });
});
