import { Module } from '@nestjs/common';
import { PrismaModule } from '../prisma/prisma.module.js';
import { UsageModule } from '../usage/usage.module.js';
import { HealthController } from './health.controller.js';

/** Readiness: the database and the usage consumer. */
@Module({ imports: [PrismaModule, UsageModule], controllers: [HealthController] })
export class HealthModule {}
