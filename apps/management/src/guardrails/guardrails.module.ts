import { Module } from '@nestjs/common';
import { AuditWriterModule } from '../audit/audit-writer.module.js';
import { ManagementEventsModule } from '../messaging/management-events.module.js';
import { PrismaModule } from '../prisma/prisma.module.js';
import { WorkspacesModule } from '../workspaces/workspaces.module.js';
import { GuardrailAssignmentsService } from './guardrail-assignments.service.js';
import { GuardrailsController } from './guardrails.controller.js';
import { GuardrailsService } from './guardrails.service.js';

/** Guardrails (what keys and members may route to) and their assignments. */
@Module({
  imports: [PrismaModule, AuditWriterModule, ManagementEventsModule, WorkspacesModule],
  controllers: [GuardrailsController],
  providers: [GuardrailsService, GuardrailAssignmentsService],
})
export class GuardrailsModule {}
