import type { INestMicroservice } from '@nestjs/common';
import { validateEnv } from '@gw/config';
import { bootstrapService, ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { TEST_BYOK_KEKS, testDatabaseUrl } from '@gw/testing';
import { inject } from 'vitest';
import { AppModule } from './app.module.js';
import { ManagementEnv } from './env.js';

export interface ManagementUnderTest {
  service: INestMicroservice;
  /** A client connection of the test's own, as the gateway has. */
  nats: ResilientNatsConnection;
  rpc: RpcClient;
}

/**
 * The management service on the run's real PostgreSQL and NATS (integration global setup), in
 * the `management` queue group, and an RpcClient that calls it the way the gateway does. Every
 * test service on the shared NATS must use the same KEK: replicas answer each other's requests.
 */
export async function startManagement(
  name: string,
  options: { byokKeks?: string; rpcTimeoutMs?: number } = {},
): Promise<ManagementUnderTest> {
  const natsUrl = inject('natsUrl');
  const env = validateEnv(ManagementEnv, {
    DATABASE_URL: testDatabaseUrl(inject('databasePrefix'), 'management'),
    NATS_URL: natsUrl,
    LOG_LEVEL: 'silent',
    BYOK_KEKS: options.byokKeks ?? TEST_BYOK_KEKS,
  });
  const service = await bootstrapService(AppModule.forRoot(env), { queue: 'management', natsUrl });
  const nats = await ResilientNatsConnection.open({ servers: natsUrl, name });
  return { service, nats, rpc: new RpcClient(nats, options.rpcTimeoutMs ?? 5_000) };
}
