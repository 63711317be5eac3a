import { validateEnv } from '@gw/config';
import type { CatalogAuditRecord } from '@gw/contracts';
import type { RpcClient } from '@gw/messaging';
import { DEV_CATALOG_PATHS, testDatabaseUrl } from '@gw/testing';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { InferenceEnv } from '../env.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { CatalogAuditRelay } from './catalog-audit-relay.js';

/**
 * Management as the relay sees it: takes records, or fails (down, or its reply lost after storing).
 * It fails only for this file's versions: other files' pending versions in the shared database
 * come first in a round and are simply taken.
 */
class FakeManagement {
  received: CatalogAuditRecord[] = [];
  mode: 'up' | 'down' | 'reply-lost' = 'up';

  constructor(private readonly ours: (record: CatalogAuditRecord) => boolean) {}

  readonly rpc = {
    send: async (_message: unknown, payload: { records: CatalogAuditRecord[] }) => {
      if (!payload.records.some(this.ours)) return { stored: payload.records.length };
      if (this.mode === 'down') throw new Error('no responders');
      this.received.push(...payload.records);
      if (this.mode === 'reply-lost') throw new Error('timeout');
      return { stored: payload.records.length };
    },
  } as unknown as RpcClient;
}

/**
 * The catalog's audit outbox on a real PostgreSQL: a stored version stays pending until
 * management took its rows; a failure, or a reply lost after management stored them, leaves it
 * pending and the next round sends the same rows (same origins: management keeps one of each).
 */
describe('catalog audit relay', () => {
  let prisma: PrismaService;
  let relay: CatalogAuditRelay;
  const first = 700_000 + Math.floor(Math.random() * 99_000) * 2;
  const management = new FakeManagement(
    (record) => record.origin.startsWith(`catalog/${first}/`) || record.origin.startsWith(`catalog/${first + 1}/`),
  );
  const model = (prompt: string) => ({ id: 'a/x', name: 'X', endpoints: [{ provider: 'p', upstreamModel: 'm', pricing: { prompt } }] });

  beforeAll(async () => {
    const env = validateEnv(InferenceEnv, {
      DATABASE_URL: testDatabaseUrl(inject('databasePrefix'), 'inference'),
      LOG_LEVEL: 'silent',
      MODEL_CATALOG_PATHS: DEV_CATALOG_PATHS.join(','),
    });
    prisma = new PrismaService(env);
    relay = new CatalogAuditRelay(prisma, env, management.rpc);
    for (const [version, prompt] of [
      [first, '1'],
      [first + 1, '2'],
    ] as const)
      await prisma.pool.query(
        `INSERT INTO catalog_versions (version, document, author, action, source, request_id, client_ip)
         VALUES ($1, $2, 'platform', 'put_model', 'admin', 'req-1', '203.0.113.1')`,
        [version, JSON.stringify({ providers: [], models: [model(prompt)] })],
      );
  });

  afterAll(async () => {
    await prisma?.pool.query('DELETE FROM catalog_versions WHERE version IN ($1, $2)', [first, first + 1]);
    await prisma?.$disconnect();
  });

  const pending = async () =>
    (
      await prisma.pool.query<{ version: number }>(
        'SELECT version FROM catalog_versions WHERE version IN ($1, $2) AND audited_at IS NULL',
        [first, first + 1],
      )
    ).rowCount;
  const of = (version: number) => management.received.filter((record) => record.origin.startsWith(`catalog/${version}/`));

  it('keeps a version pending while management cannot take it', async () => {
    management.mode = 'down';
    await relay.drain();
    expect(await pending()).toBe(2);
  });

  it('sends the same rows again after a reply lost once management stored them', async () => {
    management.mode = 'reply-lost';
    await relay.drain();
    expect(await pending()).toBe(2);
    management.mode = 'up';
    await relay.drain();
    expect(await pending()).toBe(0);
    // The first version's row went twice, with one origin: management's unique origin keeps one row.
    expect(of(first).map((record) => record.origin)).toEqual([`catalog/${first}/catalog`, `catalog/${first}/catalog`]);
    expect(of(first + 1)).toEqual([expect.objectContaining({ origin: `catalog/${first + 1}/catalog_model/a/x` })]);
    expect(of(first + 1)[0]).toMatchObject({
      action: 'catalog.models.update',
      actorKind: 'operator',
      actorName: 'platform',
      requestId: 'req-1',
      ip: '203.0.113.1',
      before: model('1'),
      after: model('2'),
    });
  });

  it('sends nothing once every version is marked', async () => {
    const before = management.received.length;
    await relay.drain();
    expect(
      management.received.slice(before).filter((record) => [first, first + 1].some((v) => record.origin.startsWith(`catalog/${v}/`))),
    ).toEqual([]);
  });
});
