import { Module } from '@nestjs/common';
import { IdentityModule } from '../identity/identity.module.js';
import { PrismaModule } from '../prisma/prisma.module.js';
import { AuthController } from './auth.controller.js';
import { AuthService } from './auth.service.js';

/** Key hash -> principal, the gateway's one source of principals. */
@Module({ imports: [PrismaModule, IdentityModule], controllers: [AuthController], providers: [AuthService] })
export class AuthModule {}
