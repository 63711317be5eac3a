import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { BATCH_ENV, type BatchEnv } from '../env.js';

/** The batch database, through Prisma 7 and the node-postgres driver adapter. */
@Injectable()
export class PrismaService extends PrismaClient implements OnApplicationShutdown {
  constructor(@Inject(BATCH_ENV) env: BatchEnv) {
    super({
      adapter: new PrismaPg({
        connectionString: env.DATABASE_URL,
        max: env.DATABASE_POOL_SIZE,
        connectionTimeoutMillis: env.DATABASE_CONNECT_TIMEOUT_MS,
      }),
    });
  }

  /** The last shutdown phase: consumers stop in earlier hooks and may still be writing. */
  async onApplicationShutdown(): Promise<void> {
    await this.$disconnect();
  }
}
