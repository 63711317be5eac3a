import { validateEnv } from '@gw/config';
import { TEST_BYOK_KEKS, testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManagementEnv } from '../env.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { AuditLogReader } from './audit-log.reader.js';
import { CatalogAuditIngest } from './catalog-audit.ingest.js';
import { WorkspaceRoles } from '../workspaces/workspace-roles.js';

/** The catalog's audit rows on a real PostgreSQL: each origin stored once, read back by the operator. */
describe('catalog audit ingest', () => {
  let prisma: PrismaService;
  let ingest: CatalogAuditIngest;
  let reader: AuditLogReader;
  const model = `audit-${randomUUID()}`;

  beforeAll(() => {
    const env = validateEnv(ManagementEnv, {
      DATABASE_URL: testDatabaseUrl(inject('databasePrefix'), 'management'),
      LOG_LEVEL: 'silent',
      BYOK_KEKS: TEST_BYOK_KEKS,
    });
    prisma = new PrismaService(env);
    ingest = new CatalogAuditIngest(prisma);
    reader = new AuditLogReader(prisma, new WorkspaceRoles(prisma));
  });

  afterAll(async () => {
    await prisma?.$disconnect();
  });

  it('stores a record relayed twice once, at the time of the change', async () => {
    const record = {
      origin: `catalog/3/catalog_model/${model}`,
      actorKind: 'operator' as const,
      actorName: 'platform',
      action: 'catalog.models.update',
      resourceType: 'catalog_model',
      resourceId: model,
      before: { name: 'A' },
      after: { name: 'B' },
      createdAt: '2026-11-28T10:00:00.000Z',
      requestId: 'req-9',
      ip: '203.0.113.2',
    };
    expect(await ingest.append([record])).toEqual({ stored: 1 });
    expect(await ingest.append([record])).toEqual({ stored: 0 });
    const page = await reader.listAll({ workspace_id: 'none', resource_id: model });
    expect(page.data).toEqual([
      expect.objectContaining({
        workspace_id: null,
        created_at: '2026-11-28T10:00:00.000Z',
        actor: { kind: 'operator', user_id: null, key_hash: null, name: 'platform' },
        action: 'catalog.models.update',
        before: { name: 'A' },
        after: { name: 'B' },
        ip: '203.0.113.2',
        request_id: 'req-9',
        origin: record.origin,
      }),
    ]);
  });
});
