import { Controller, Logger } from '@nestjs/common';
import { EventPattern, Payload } from '@nestjs/microservices';
import { KeysUsedEvent, KeysUsed } from '@gw/contracts';
import { LastUsedService } from './last-used.service.js';

/**
 * `events.keys.used` from the gateways. An event handler of the service's microservice, so it
 * listens in the management queue group: one replica applies each batch.
 */
@Controller()
export class KeysUsedController {
  private readonly logger = new Logger(KeysUsedController.name);

  constructor(private readonly lastUsed: LastUsedService) {}

  @EventPattern(KeysUsed.subject)
  async keysUsed(@Payload() event: KeysUsedEvent): Promise<void> {
    try {
      await this.lastUsed.apply(event.entries);
    } catch (error) {
      // last_used_at is informational: a lost batch is corrected by the next one.
      this.logger.warn(`Could not apply ${event.entries.length} last-used time(s): ${(error as Error).message}`);
    }
  }
}
