import { Module } from '@nestjs/common';
import { PrismaModule } from '../prisma/prisma.module.js';
import { WorkspaceAccessService } from './workspace-access.service.js';

/** Which workspaces a principal may act in: every feature that writes per workspace asks it. */
@Module({ imports: [PrismaModule], providers: [WorkspaceAccessService], exports: [WorkspaceAccessService] })
export class WorkspacesModule {}
