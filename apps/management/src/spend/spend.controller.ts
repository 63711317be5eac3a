import { Controller, Logger } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { SpendReleased, SpendReleasedEvent, SpendReserve, SpendReserveRequest, type SpendReserveReply } from '@gw/contracts';
import { SpendReservations } from './spend-reservations.js';

/** Inference's leases on spend: topped up before calls, released when retired. */
@Controller()
export class SpendController {
  private readonly logger = new Logger(SpendController.name);

  constructor(private readonly reservations: SpendReservations) {}

  @MessagePattern(SpendReserve.subject)
  async reserve(@Payload() request: SpendReserveRequest): Promise<SpendReserveReply> {
    return { granted: await this.reservations.reserve(request) };
  }

  @EventPattern(SpendReleased.subject)
  async released(@Payload() event: SpendReleasedEvent): Promise<void> {
    try {
      await this.reservations.release(event);
    } catch (error) {
      // A lost release only holds the amount until the reservation expires.
      this.logger.warn(`Could not release spend reservation ${event.reservationId}: ${(error as Error).message}`);
    }
  }
}
