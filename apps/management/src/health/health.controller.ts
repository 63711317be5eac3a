import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { JETSTREAM, type HealthReply, HEALTH_MESSAGES } from '@gw/contracts';
import { healthReply } from '@gw/messaging';
import { UsageConsumer } from '../usage/usage-consumer.js';
import { PrismaService } from '../prisma/prisma.service.js';

@Controller()
export class HealthController {
  constructor(
    private readonly prisma: PrismaService,
    private readonly consumer: UsageConsumer,
  ) {}

  /** Healthy means: subscribed to NATS (or this would not run) and the database answers. */
  @MessagePattern(HEALTH_MESSAGES.management.subject)
  async health(): Promise<HealthReply> {
    await this.prisma.$queryRaw`SELECT 1`;
    return { ...healthReply('management'), consumers: { [JETSTREAM.consumers.managementUsage]: this.consumer.stats() } };
  }
}
