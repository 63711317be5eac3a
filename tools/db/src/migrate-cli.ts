import { DATABASE_SERVICES, migrationsPath, withDatabase } from './services.ts';
import { ensureDatabase, migrate } from './migrate.ts';

/**
 * `npm run db:migrate [service]`: creates and migrates each service's database. URLs come
 * from the services' variables (MANAGEMENT_DATABASE_URL, ...) or default to the local
 * server in POSTGRES_URL.
 */
const base = process.env.POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const only = process.argv[2];
for (const service of DATABASE_SERVICES) {
  if (only && service.name !== only) continue;
  const url = process.env[service.urlEnv] ?? withDatabase(base, service.defaultDatabase);
  await ensureDatabase(url);
  const result = await migrate(url, migrationsPath(service.name));
  console.log(`${service.name}: ${result.applied.length} applied, ${result.alreadyApplied.length} already applied`);
}
