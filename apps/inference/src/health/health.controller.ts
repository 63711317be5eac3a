import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { JETSTREAM, type HealthReply, HEALTH_MESSAGES } from '@gw/contracts';
import { healthReply } from '@gw/messaging';
import { CatalogSync } from '../catalog/catalog-sync.service.js';
import { GenerationsConsumer } from '../generations/generations-consumer.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { RequestFailuresConsumer } from '../request-failures/request-failures-consumer.js';

@Controller()
export class HealthController {
  constructor(
    private readonly prisma: PrismaService,
    private readonly consumer: GenerationsConsumer,
    private readonly failures: RequestFailuresConsumer,
    private readonly catalog: CatalogSync,
  ) {}

  @MessagePattern(HEALTH_MESSAGES.inference.subject)
  async health(): Promise<HealthReply> {
    await this.prisma.$queryRaw`SELECT 1`;
    return {
      ...healthReply('inference'),
      consumers: {
        [JETSTREAM.consumers.inferenceGenerations]: this.consumer.stats(),
        [JETSTREAM.consumers.inferenceRequestFailures]: this.failures.stats(),
      },
      catalog: this.catalog.state(),
    };
  }
}
