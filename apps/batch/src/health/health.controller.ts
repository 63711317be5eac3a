import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { type HealthReply, HEALTH_MESSAGES } from '@gw/contracts';
import { healthReply } from '@gw/messaging';
import { PrismaService } from '../prisma/prisma.service.js';

@Controller()
export class HealthController {
  constructor(private readonly prisma: PrismaService) {}

  @MessagePattern(HEALTH_MESSAGES.batch.subject)
  async health(): Promise<HealthReply> {
    await this.prisma.$queryRaw`SELECT 1`;
    return healthReply('batch');
  }
}
