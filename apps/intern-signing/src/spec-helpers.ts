import type { INestMicroservice } from '@nestjs/common';
import { validateEnv } from '@gw/config';
import { ResilientNatsConnection, RpcClient, startServiceReplica } from '@gw/messaging';
import { testDatabaseUrl } from '@gw/testing';
import { inject } from 'vitest';
import { InternSigningEnv } from './env.js';
import { AppModule } from './app.module.js';

/** A fixed test signing key: `<kid>:<seed>` (never used outside tests). */
export const TEST_SIGNING_SEED = Buffer.alloc(32, 42);
const TEST_SIGNING_KEYS = `test-2:${TEST_SIGNING_SEED.toString('base64')},test-1:${Buffer.alloc(32, 41).toString('base64')}`;

export interface InternSigningUnderTest {
  service: INestMicroservice;
  nats: ResilientNatsConnection;
  rpc: RpcClient;
}

/** The intern-signing service on the run's PostgreSQL and NATS, and a client calling it as the gateway does. */
export async function startInternSigning(name: string, overrides: Record<string, string> = {}): Promise<InternSigningUnderTest> {
  const natsUrl = inject('natsUrl');
  const env = validateEnv(InternSigningEnv, {
    DATABASE_URL: testDatabaseUrl(inject('databasePrefix'), 'intern-signing'),
    NATS_URL: natsUrl,
    LOG_LEVEL: 'silent',
    DAEMON_SIGNING_KEYS: TEST_SIGNING_KEYS,
    REDIS_URL: inject('redisUrl'),
    REDIS_KEY_PREFIX: inject('redisKeyPrefix'),
    ...overrides,
  });
  const service = (await startServiceReplica(AppModule.forRoot(env), { queue: 'intern-signing', natsUrl })).app;
  const nats = await ResilientNatsConnection.open({ servers: natsUrl, name });
  return { service, nats, rpc: new RpcClient(nats, 5_000) };
}
