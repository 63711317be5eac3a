import { DATABASE_SERVICES, dropDatabase, ensureDatabase, migrate, migrationsPath, withDatabase } from '@gw/db-tools';

export type ServiceDatabaseName = (typeof DATABASE_SERVICES)[number]['name'];

export const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/** Database names of one test run: `<prefix>_<service>`, so runs never share data. */
export function testDatabaseNames(prefix: string): Record<ServiceDatabaseName, string> {
  return Object.fromEntries(
    DATABASE_SERVICES.map((service) => [service.name, `${prefix}_${service.name.replace(/-/g, '_')}`]),
  ) as Record<ServiceDatabaseName, string>;
}

export function testDatabaseUrl(prefix: string, service: ServiceDatabaseName): string {
  return withDatabase(POSTGRES_URL, testDatabaseNames(prefix)[service]);
}

/** Creates and migrates every service's database for a run. */
export async function createTestDatabases(prefix: string): Promise<void> {
  for (const service of DATABASE_SERVICES) {
    const url = testDatabaseUrl(prefix, service.name);
    await dropDatabase(url);
    await ensureDatabase(url);
    await migrate(url, migrationsPath(service.name));
  }
}

export async function dropTestDatabases(prefix: string): Promise<void> {
  for (const service of DATABASE_SERVICES) await dropDatabase(testDatabaseUrl(prefix, service.name));
}

/** A short unique prefix for a run: lower case, valid as a PostgreSQL identifier. */
export function runPrefix(kind: string): string {
  return `gwtest_${kind}_${process.pid}_${Date.now().toString(36)}`;
}
