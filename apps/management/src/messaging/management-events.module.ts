import { Module } from '@nestjs/common';
import {
  MANAGEMENT_EVENTS_CONNECTION,
  MANAGEMENT_EVENTS_CONNECTION_PROVIDER,
  ManagementEventsPublisher,
} from './management-events.publisher.js';

/** Management's own NATS connection for the events it publishes and the usage it consumes. */
@Module({
  providers: [MANAGEMENT_EVENTS_CONNECTION_PROVIDER, ManagementEventsPublisher],
  exports: [MANAGEMENT_EVENTS_CONNECTION, ManagementEventsPublisher],
})
export class ManagementEventsModule {}
