import { Module } from '@nestjs/common';
import { PrismaModule } from '../prisma/prisma.module.js';
import { PrismaService } from '../prisma/prisma.service.js';
import { SpendController } from './spend.controller.js';
import { SpendReservations } from './spend-reservations.js';

/** Spend reserved before a call and settled by its usage events. */
@Module({
  imports: [PrismaModule],
  controllers: [SpendController],
  providers: [
    { provide: SpendReservations, inject: [PrismaService], useFactory: (prisma: PrismaService) => new SpendReservations(prisma.pool) },
  ],
})
export class SpendModule {}
