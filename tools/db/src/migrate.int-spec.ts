import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { dropDatabase, ensureDatabase, migrate } from './migrate.ts';
import { withDatabase } from './services.ts';

const base = process.env.POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const url = withDatabase(base, `gwtest_migrate_${process.pid}_${Date.now().toString(36)}`);
const directory = mkdtempSync(join(tmpdir(), 'migrations-'));

function writeMigration(name: string, sql: string): void {
  mkdirSync(join(directory, name), { recursive: true });
  writeFileSync(join(directory, name, 'migration.sql'), sql);
}

afterAll(() => dropDatabase(url));

describe('migration runner', () => {
  it('applies each migration once and records it as prisma migrate deploy does', async () => {
    await ensureDatabase(url);
    await ensureDatabase(url); // idempotent
    writeMigration('20260101000000_first', 'CREATE TABLE "a" ("id" INTEGER PRIMARY KEY);');
    expect(await migrate(url, directory)).toEqual({ applied: ['20260101000000_first'], alreadyApplied: [] });
    writeMigration('20260102000000_second', 'ALTER TABLE "a" ADD COLUMN "b" TEXT;');
    expect(await migrate(url, directory)).toEqual({ applied: ['20260102000000_second'], alreadyApplied: ['20260101000000_first'] });

    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const { rows } = await client.query(
      'SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name',
    );
    await client.end();
    expect(rows.map((row) => row.migration_name)).toEqual(['20260101000000_first', '20260102000000_second']);
    expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.checksum) && row.finished_at && row.applied_steps_count === 1)).toBe(true);
  });

  it('refuses a migration edited after it was applied', async () => {
    writeMigration('20260101000000_first', 'CREATE TABLE "a" ("id" BIGINT PRIMARY KEY);');
    await expect(migrate(url, directory)).rejects.toThrow(/edited after it was applied/);
  });

  it('rolls a failing migration back whole and leaves no record', async () => {
    writeMigration('20260101000000_first', 'CREATE TABLE "a" ("id" INTEGER PRIMARY KEY);');
    writeMigration('20260103000000_broken', 'CREATE TABLE "c" ("id" INTEGER); SELECT no_such_function();');
    await expect(migrate(url, directory)).rejects.toThrow(/20260103000000_broken failed/);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const table = await client.query(`SELECT to_regclass('public.c') AS exists`);
    const record = await client.query(`SELECT 1 FROM "_prisma_migrations" WHERE migration_name = '20260103000000_broken'`);
    await client.end();
    expect(table.rows[0].exists).toBeNull();
    expect(record.rowCount).toBe(0);
  });
});
