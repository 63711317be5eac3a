import { Module } from '@nestjs/common';
import { AuditWriterModule } from '../audit/audit-writer.module.js';
import { ManagementEventsModule } from '../messaging/management-events.module.js';
import { PrismaModule } from '../prisma/prisma.module.js';
import { WorkspaceAccessService } from './workspace-access.service.js';
import { WorkspaceAdminService } from './workspace-admin.service.js';
import { WorkspaceBudgetsService } from './workspace-budgets.service.js';
import { WorkspaceMembersService } from './workspace-members.service.js';
import { WorkspaceRoles } from './workspace-roles.js';
import { WorkspacesController } from './workspaces.controller.js';

/**
 * Which workspaces a principal may act in (every feature that writes per workspace asks it), and
 * the workspaces API itself: CRUD, members, budgets, organization members.
 */
@Module({
  imports: [PrismaModule, AuditWriterModule, ManagementEventsModule],
  controllers: [WorkspacesController],
  providers: [WorkspaceAccessService, WorkspaceRoles, WorkspaceAdminService, WorkspaceMembersService, WorkspaceBudgetsService],
  exports: [WorkspaceAccessService, WorkspaceRoles],
})
export class WorkspacesModule {}
