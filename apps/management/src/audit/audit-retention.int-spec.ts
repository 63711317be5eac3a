import { validateEnv } from '@gw/config';
import { TEST_BYOK_KEKS, testDatabaseUrl } from '@gw/testing';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManagementEnv } from '../env.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { AuditRetention } from './audit-retention.js';

const DAY_MS = 86_400_000;

/** The audit log's sweep on a real PostgreSQL: rows past AUDIT_LOG_RETENTION_DAYS go, the others stay. */
describe('audit log retention', () => {
  let prisma: PrismaService;
  let retention: AuditRetention;
  const workspaceId = randomUUID();

  beforeAll(() => {
    const env = validateEnv(ManagementEnv, {
      DATABASE_URL: testDatabaseUrl(inject('databasePrefix'), 'management'),
      LOG_LEVEL: 'silent',
      BYOK_KEKS: TEST_BYOK_KEKS,
      AUDIT_LOG_RETENTION_DAYS: '30',
    });
    prisma = new PrismaService(env);
    retention = new AuditRetention(prisma, env);
  });

  afterAll(async () => {
    await prisma?.$disconnect();
  });

  it('deletes the rows older than the retention and keeps the rest', async () => {
    const now = Date.now();
    const ages = [400, 31, 30.5, 29, 1, 0];
    for (const days of ages) {
      await prisma.pool.query(
        `INSERT INTO audit_log (workspace_id, actor_kind, action, resource_type, resource_id, created_at)
         VALUES ($1, 'management_key', 'key.create', 'key', $2, $3)`,
        [workspaceId, `age-${days}`, new Date(now - days * DAY_MS)],
      );
    }
    expect(await retention.sweep(now)).toBeGreaterThanOrEqual(3);
    const { rows } = await prisma.pool.query<{ resource_id: string }>(
      'SELECT resource_id FROM audit_log WHERE workspace_id = $1 ORDER BY created_at',
      [workspaceId],
    );
    expect(rows.map((row) => row.resource_id)).toEqual(['age-29', 'age-1', 'age-0']);
    // Nothing left to delete: a second round deletes none of this workspace's rows.
    await retention.sweep(now);
    expect((await prisma.pool.query('SELECT 1 FROM audit_log WHERE workspace_id = $1', [workspaceId])).rowCount).toBe(3);
  });

  it('lets one replica sweep at a time', async () => {
    const client = await prisma.pool.connect();
    try {
      await client.query('SELECT pg_advisory_lock(31119)');
      expect(await retention.sweep()).toBeNull();
    } finally {
      await client.query('SELECT pg_advisory_unlock(31119)');
      client.release();
    }
  });
});
