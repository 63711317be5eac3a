import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';

/**
 * The inference database (generation records), through the node-postgres driver adapter. The
 * adapter runs on a pool this service creates, `pool`, which the generation writer uses directly
 * for its prepared statement: one pool of DATABASE_POOL_SIZE connections, not two.
 */
const logger = new Logger('PrismaService');

@Injectable()
export class PrismaService extends PrismaClient implements OnApplicationShutdown {
  readonly pool: pg.Pool;

  constructor(@Inject(INFERENCE_ENV) env: InferenceEnv) {
    const pool = new pg.Pool({
      connectionString: env.DATABASE_URL,
      max: env.DATABASE_POOL_SIZE,
      connectionTimeoutMillis: env.DATABASE_CONNECT_TIMEOUT_MS,
    });
    // An idle connection the server closed (a restart, an outage) is dropped by the pool; without
    // a listener its 'error' would be uncaught (the adapter adds its own only once Prisma connects).
    pool.on('error', (error) => logger.warn(`Idle database connection lost: ${error.message}`));
    // disposeExternalPool: $disconnect() ends the pool, as it did when the adapter created it.
    super({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
    this.pool = pool;
  }

  /** The last shutdown phase: consumers stop in earlier hooks and may still be writing. */
  async onApplicationShutdown(): Promise<void> {
    await this.$disconnect();
  }
}
