import type { TestProject } from 'vitest/node';
import '../provided-context.js';
import {
  createTestDatabases,
  dropTestDatabases,
  ensurePostgres,
  freePort,
  POSTGRES_URL,
  PrivateNatsServer,
  runPrefix,
  seedKeys,
  startStack,
  stopProcessesGracefully,
  testDatabaseNames,
  testDatabaseUrl,
  type Stack,
} from '@gw/stack';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * End-to-end tests: the real built services, gateway and simulator as child processes, on
 * databases and a nats-server of the run's own, with freshly seeded keys.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await ensurePostgres(POSTGRES_URL);
  const prefix = runPrefix('e2e');
  await createTestDatabases(prefix);
  const nats = await PrivateNatsServer.start();
  const stateDir = mkdtempSync(join(tmpdir(), 'gw-e2e-'));
  let stack: Stack | undefined;
  try {
    const keys = seedKeys(testDatabaseUrl(prefix, 'management'));
    stack = await startStack({
      stateDir,
      natsUrl: nats.url,
      postgresUrl: POSTGRES_URL,
      databases: testDatabaseNames(prefix),
      gatewayPort: await freePort(),
      simulatorPort: await freePort(),
      detached: false,
      logLevel: 'warn',
    });
    project.provide('stack', {
      baseUrl: stack.baseUrl,
      simulatorUrl: stack.simulatorUrl,
      managementKey: keys.managementKey,
      apiKey: keys.apiKey,
      workspaceId: keys.workspaceId,
      logDir: join(stateDir, 'logs'),
      natsUrl: nats.url,
      managementDatabaseUrl: testDatabaseUrl(prefix, 'management'),
    });
  } catch (error) {
    await nats.stop();
    await dropTestDatabases(prefix);
    throw error;
  }
  return async () => {
    await stopProcessesGracefully(stack?.processes.map((entry) => entry.pid) ?? []);
    await nats.stop();
    await dropTestDatabases(prefix);
  };
}
