import { describe, expect, it } from 'vitest';
import { catalogAuditRecords } from './catalog-audit-records.js';
import type { StoredCatalogVersion } from './catalog-versions.store.js';

const provider = (apiKey: string) => ({ id: 'p', name: 'P', format: 'openai', baseUrl: 'https://p.example/v1', apiKey });
const model = (id: string, prompt: string) => ({ id, name: id, endpoints: [{ provider: 'p', upstreamModel: 'm', pricing: { prompt } }] });

function version(number: number, document: object, source: 'admin' | 'file' = 'admin'): StoredCatalogVersion {
  return {
    version: number,
    document: JSON.stringify(document),
    author: source === 'admin' ? 'platform' : 'file:models.json',
    action: 'import',
    source,
    changes: [],
    createdAt: new Date('2026-11-28T10:00:00.000Z'),
    requestId: 'req-7',
    clientIp: '203.0.113.9',
  };
}

describe('catalogAuditRecords', () => {
  it('records the seed as one row', () => {
    const records = catalogAuditRecords(version(1, { providers: [provider('${K}')], models: [model('a/x', '1')] }, 'file'), undefined);
    expect(records).toEqual([
      expect.objectContaining({
        origin: 'catalog/1/catalog',
        action: 'catalog.seed',
        actorKind: 'system',
        actorName: 'file:models.json',
        after: { version: 1, action: 'import', providers: 1, models: 1 },
      }),
    ]);
  });

  it('records each created, updated and deleted entry once, with the operator and the request', () => {
    const before = { providers: [provider('${K}')], models: [model('a/x', '1'), model('a/gone', '1'), model('a/same', '1')] };
    const after = { providers: [provider('sk-literal-secret')], models: [model('a/x', '2'), model('a/new', '3'), model('a/same', '1')] };
    const records = catalogAuditRecords(version(5, after), before);
    expect(records.map((record) => [record.action, record.resourceId, record.origin])).toEqual([
      ['catalog.providers.update', 'p', 'catalog/5/catalog_provider/p'],
      ['catalog.models.update', 'a/x', 'catalog/5/catalog_model/a/x'],
      ['catalog.models.delete', 'a/gone', 'catalog/5/catalog_model/a/gone'],
      ['catalog.models.create', 'a/new', 'catalog/5/catalog_model/a/new'],
    ]);
    const update = records[1]!;
    expect(update).toMatchObject({ actorKind: 'operator', actorName: 'platform', requestId: 'req-7', ip: '203.0.113.9' });
    expect(update.before).toEqual(model('a/x', '1'));
    expect(update.after).toEqual(model('a/x', '2'));
    expect(records[2]!.after).toBeUndefined();
    expect(records[3]!.before).toBeUndefined();
    // A literal key never reaches the audit log.
    expect(JSON.stringify(records)).not.toContain('sk-literal-secret');
    expect(records[0]!.after).toMatchObject({ apiKey: '[redacted]' });
  });
});
