import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from '../generated/prisma/client.js';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';

/** The inference database (generation records), through the node-postgres driver adapter. */
@Injectable()
export class PrismaService extends PrismaClient implements OnApplicationShutdown {
  constructor(@Inject(INFERENCE_ENV) env: InferenceEnv) {
    super({ adapter: new PrismaPg({ connectionString: env.DATABASE_URL, max: env.DATABASE_POOL_SIZE }) });
  }

  /** The last shutdown phase: consumers stop in earlier hooks and may still be writing (ADR 0026). */
  async onApplicationShutdown(): Promise<void> {
    await this.$disconnect();
  }
}
