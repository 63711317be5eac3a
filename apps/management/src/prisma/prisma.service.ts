import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { MANAGEMENT_ENV, type ManagementEnv } from '../env.js';

/**
 * The management database, through Prisma 7 and the node-postgres driver adapter. `pool` is
 * the adapter's own pool: the usage counter runs its one prepared statement on it directly,
 * without a second set of connections.
 */
@Injectable()
export class PrismaService extends PrismaClient implements OnApplicationShutdown {
  readonly pool: pg.Pool;

  constructor(@Inject(MANAGEMENT_ENV) env: ManagementEnv) {
    const pool = new pg.Pool({
      connectionString: env.DATABASE_URL,
      max: env.DATABASE_POOL_SIZE,
      connectionTimeoutMillis: env.DATABASE_CONNECT_TIMEOUT_MS,
    });
    // An idle connection the server closed: the pool drops it. Without a listener the pool's 'error'
    // would be thrown (Prisma adds its own only on its first query, and the counter may come first).
    const logger = new Logger(PrismaService.name);
    pool.on('error', (error) => logger.warn(`Idle database connection lost: ${error.message}`));
    super({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
    this.pool = pool;
  }

  /** The last shutdown phase: consumers stop in earlier hooks and may still be writing. */
  async onApplicationShutdown(): Promise<void> {
    await this.$disconnect();
  }
}
