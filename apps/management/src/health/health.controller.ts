import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { SUBJECTS, type HealthReply } from '@gw/contracts';
import { healthReply } from '@gw/messaging';
import { PrismaService } from '../prisma/prisma.service.js';

@Controller()
export class HealthController {
  constructor(private readonly prisma: PrismaService) {}

  /** Healthy means: subscribed to NATS (or this would not run) and the database answers. */
  @MessagePattern(SUBJECTS.management.health)
  async health(): Promise<HealthReply> {
    await this.prisma.$queryRaw`SELECT 1`;
    return healthReply('management');
  }
}
