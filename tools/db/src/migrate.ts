import { createHash, randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';

/**
 * Applies Prisma-layout SQL migrations (`<dir>/<timestamp>_<name>/migration.sql`) and records
 * them in `_prisma_migrations` exactly as `prisma migrate deploy` does (same table, same
 * sha256 checksums), so the real CLI can take over a database later.
 * Each migration runs in its own transaction; an advisory lock keeps two runners apart.
 */

const MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/** Prisma's migrate advisory lock key, so this runner and `prisma migrate` exclude each other. */
const ADVISORY_LOCK_KEY = 72707369;

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

export interface MigrateResult {
  applied: string[];
  alreadyApplied: string[];
}

export async function readMigrations(directory: string): Promise<Migration[]> {
  const entries = await readdir(directory, { withFileTypes: true });
  const names = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await readFile(join(directory, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

export async function migrate(databaseUrl: string, migrationsDirectory: string): Promise<MigrateResult> {
  const migrations = await readMigrations(migrationsDirectory);
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCK_KEY]);
    await client.query(MIGRATIONS_TABLE);
    const { rows } = await client.query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
      rolled_back_at: Date | null;
    }>('SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations"');
    const result: MigrateResult = { applied: [], alreadyApplied: [] };
    for (const migration of migrations) {
      const records = rows.filter((row) => row.migration_name === migration.name && row.rolled_back_at === null);
      const finished = records.find((row) => row.finished_at !== null);
      if (finished) {
        if (finished.checksum !== migration.checksum) {
          throw new Error(`Migration ${migration.name} was edited after it was applied (checksum differs)`);
        }
        result.alreadyApplied.push(migration.name);
        continue;
      }
      if (records.length > 0) {
        throw new Error(`Migration ${migration.name} failed earlier; resolve it before migrating again`);
      }
      await applyOne(client, migration);
      result.applied.push(migration.name);
    }
    return result;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}

async function applyOne(client: pg.Client, migration: Migration): Promise<void> {
  const id = randomUUID();
  await client.query('BEGIN');
  try {
    await client.query(
      'INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)',
      [id, migration.checksum, migration.name],
    );
    await client.query(migration.sql);
    await client.query('UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1', [id]);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK');
    throw new Error(`Migration ${migration.name} failed: ${(error as Error).message}`, { cause: error });
  }
}

/** The database name of a URL, refusing names that would need quoting rules. */
function databaseName(databaseUrl: string): string {
  const database = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  if (!/^[A-Za-z0-9_]+$/.test(database)) throw new Error(`Unsupported database name: ${database}`);
  return database;
}

/** Runs `action` on a connection to the server's `postgres` database. */
async function withAdminClient(databaseUrl: string, action: (client: pg.Client) => Promise<void>): Promise<void> {
  const admin = new URL(databaseUrl);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await action(client);
  } finally {
    await client.end();
  }
}

/** Creates the database of `databaseUrl` when it does not exist yet. */
export async function ensureDatabase(databaseUrl: string): Promise<void> {
  const database = databaseName(databaseUrl);
  await withAdminClient(databaseUrl, async (client) => {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (rowCount) return;
    await client.query(`CREATE DATABASE "${database}"`).catch((error: { code?: string }) => {
      if (error.code !== '42P04') throw error; // created concurrently: fine
    });
  });
}

/** Drops the database of `databaseUrl`, ending its sessions first. Used by tests. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const database = databaseName(databaseUrl);
  await withAdminClient(databaseUrl, async (client) => {
    await client.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  });
}
