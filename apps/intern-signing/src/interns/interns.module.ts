import { Module } from '@nestjs/common';
import { PrismaModule } from '../prisma/prisma.module.js';
import { InternsController } from './interns.controller.js';
import { InternsService } from './interns.service.js';
import { SignableInterns } from './signable-interns.js';

/** The interns resource (list, get, create, update, delete) and the existence check management asks. */
@Module({
  imports: [PrismaModule],
  controllers: [InternsController],
  providers: [InternsService, SignableInterns],
  exports: [InternsService, SignableInterns],
})
export class InternsModule {}
