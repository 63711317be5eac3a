import { fileURLToPath } from 'node:url';

export const WORKSPACE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface DatabaseService {
  /** Service (and Prisma schema folder) name. */
  name: 'management' | 'inference' | 'batch' | 'intern-signing';
  /** The environment variable the service reads its connection string from. */
  urlEnv: string;
  /** Database name used by the local stack. */
  defaultDatabase: string;
}

/** Every service that owns a database. Each has its own PostgreSQL database. */
export const DATABASE_SERVICES: readonly DatabaseService[] = [
  { name: 'management', urlEnv: 'MANAGEMENT_DATABASE_URL', defaultDatabase: 'gateway_management' },
  { name: 'inference', urlEnv: 'INFERENCE_DATABASE_URL', defaultDatabase: 'gateway_inference' },
  { name: 'batch', urlEnv: 'BATCH_DATABASE_URL', defaultDatabase: 'gateway_batch' },
  { name: 'intern-signing', urlEnv: 'INTERN_SIGNING_DATABASE_URL', defaultDatabase: 'gateway_intern_signing' },
];

export function schemaPath(service: DatabaseService['name']): string {
  return `${WORKSPACE_ROOT}prisma/${service}/schema.prisma`;
}

export function migrationsPath(service: DatabaseService['name']): string {
  return `${WORKSPACE_ROOT}prisma/${service}/migrations`;
}

/** Replaces the database name of a PostgreSQL URL. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
