import { Module } from '@nestjs/common';
import { ManagementEventsModule } from '../messaging/management-events.module.js';
import { PrismaModule } from '../prisma/prisma.module.js';
import { IdentityController } from './identity.controller.js';
import { IdentityService } from './identity.service.js';
import { OidcClient } from './oidc-client.js';

/** Personal identities linked through the OIDC login; the OIDC client is shared with auth. */
@Module({
  imports: [PrismaModule, ManagementEventsModule],
  controllers: [IdentityController],
  providers: [IdentityService, OidcClient],
  exports: [OidcClient],
})
export class IdentityModule {}
