import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/identity.module.js';
import { ManagementEventsModule } from '../messaging/management-events.module.js';
import { PrismaModule } from '../prisma/prisma.module.js';
import { ConsoleSessionsController } from './console-sessions.controller.js';
import { ConsoleSessionsService } from './console-sessions.service.js';

/** The web console's sessions, each a key of the signed-in user. */
@Module({
  imports: [PrismaModule, ManagementEventsModule, IdentityModule],
  controllers: [ConsoleSessionsController],
  providers: [ConsoleSessionsService],
})
export class ConsoleSessionsModule {}
