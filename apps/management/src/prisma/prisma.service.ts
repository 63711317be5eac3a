import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { MANAGEMENT_ENV, type ManagementEnv } from '../env.js';

/** The management database, through Prisma 7 and the node-postgres driver adapter. */
@Injectable()
export class PrismaService extends PrismaClient implements OnApplicationShutdown {
  constructor(@Inject(MANAGEMENT_ENV) env: ManagementEnv) {
    super({ adapter: new PrismaPg({ connectionString: env.DATABASE_URL, max: env.DATABASE_POOL_SIZE }) });
  }

  /** The last shutdown phase: consumers stop in earlier hooks and may still be writing (ADR 0026). */
  async onApplicationShutdown(): Promise<void> {
    await this.$disconnect();
  }
}
