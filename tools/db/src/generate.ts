import { execFileSync } from 'node:child_process';
import { DATABASE_SERVICES, WORKSPACE_ROOT, schemaPath } from './services.ts';

/**
 * Generates every service's Prisma client offline. `prisma generate` does not use the schema
 * engine, but the CLI insists on finding it and would try to download it; pointing
 * PRISMA_SCHEMA_ENGINE_BINARY at any existing file satisfies it (ARCHITECTURE.md).
 */
export function generateClients(only?: string): void {
  const prisma = `${WORKSPACE_ROOT}node_modules/prisma/build/index.js`;
  for (const service of DATABASE_SERVICES) {
    if (only && service.name !== only) continue;
    // Output is kept back unless generation fails: it is noise on every `up` and test run.
    execFileSync(process.execPath, [prisma, 'generate', '--schema', schemaPath(service.name)], {
      cwd: WORKSPACE_ROOT,
      stdio: 'pipe',
      env: {
        ...process.env,
        PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? process.execPath,
        PRISMA_HIDE_UPDATE_MESSAGE: '1',
        CHECKPOINT_DISABLE: '1',
      },
    });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  generateClients(process.argv[2]);
  console.log(`prisma clients generated${process.argv[2] ? ` for ${process.argv[2]}` : ''}`);
}
