import type { TestProject } from 'vitest/node';
import '../provided-context.js';
import {
  createTestDatabases,
  dropTestDatabases,
  ensureNats,
  ensurePostgres,
  ensureRedis,
  generateBusSeeds,
  POSTGRES_URL,
  PrivateNatsServer,
  REDIS_URL,
  runPrefix,
} from '@gw/stack';

/**
 * Integration tests: migrated databases of their own (dropped afterwards) a private
 * nats-server and a Redis key prefix of their own, all real. Migrations run once per run, not per file.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await ensurePostgres(POSTGRES_URL);
  await ensureRedis(REDIS_URL);
  const prefix = runPrefix('int');
  await createTestDatabases(prefix);
  let nats: PrivateNatsServer | undefined;
  let natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
  try {
    // The generated configuration with every service's user; test doubles that
    // connect without credentials act as a harness with every permission.
    nats = await PrivateNatsServer.start({ seeds: await generateBusSeeds(), anonymousHarness: true });
    natsUrl = nats.url;
  } catch {
    await ensureNats(natsUrl);
  }
  project.provide('databasePrefix', prefix);
  project.provide('natsUrl', natsUrl);
  project.provide('redisUrl', REDIS_URL);
  project.provide('redisKeyPrefix', `${prefix}:`);
  return async () => {
    await nats?.stop();
    await dropTestDatabases(prefix);
  };
}
