import { AuditWriterModule } from '../audit/audit-writer.module.js';
import { Module } from '@nestjs/common';
import { ManagementEventsModule } from '../messaging/management-events.module.js';
import { PrismaModule } from '../prisma/prisma.module.js';
import { PresetWriterService } from './preset-writer.service.js';
import { PresetsController } from './presets.controller.js';
import { PresetsService } from './presets.service.js';

/** Presets and their versions; inference resolves the designated version by workspace and slug. */
@Module({
  imports: [PrismaModule, AuditWriterModule, ManagementEventsModule],
  controllers: [PresetsController],
  providers: [PresetsService, PresetWriterService],
})
export class PresetsModule {}
