import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { EVENTS, type RequestFailedEvent } from '@gw/contracts';
import type { GatewayError } from '@gw/errors';
import { JetStreamPublisher, ResilientNatsConnection } from '@gw/messaging';
import { ensureUsageStream } from '@gw/usage';
import { randomUUID } from 'node:crypto';
import { failureEventOf, type FailedRequest } from './failure-event.js';

/** A publish JetStream has not acknowledged by then is left to finish on its own; the answer does not wait longer. */
const ANSWER_WAIT_MS = 1_000;
const PUBLISH_TIMEOUT_MS = 10_000;
const encoder = new TextEncoder();

/**
 * Records failed requests of authenticated keys on `events.usage.failed` for inference to count per
 * error type; only failures pay for it. The answer waits (bounded) for JetStream's ack, so a failure
 * answered is stored even if this replica dies next.
 */
@Injectable()
export class RequestFailures implements OnModuleDestroy {
  private readonly logger = new Logger(RequestFailures.name);
  private readonly publisher: JetStreamPublisher;
  private streamReady: Promise<unknown> | undefined;
  private lastWarning = 0;

  constructor(private readonly nats: ResilientNatsConnection) {
    this.publisher = new JetStreamPublisher(nats.connection, PUBLISH_TIMEOUT_MS);
  }

  /** Resolves once the failure is stored (or after a bounded wait); never throws. */
  async record(request: FailedRequest, error: GatewayError): Promise<void> {
    const event = failureEventOf(request, error, randomUUID(), new Date());
    if (!event) return;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ANSWER_WAIT_MS);
    });
    await Promise.race([this.publish(event), waited]);
    clearTimeout(timer);
  }

  onModuleDestroy(): void {
    this.publisher.close();
  }

  private async publish(event: RequestFailedEvent): Promise<void> {
    try {
      this.streamReady ??= ensureUsageStream(this.nats.connection, this.nats.jetstream);
      await this.streamReady;
      await this.publisher.publishBytes(EVENTS.requestFailed, encoder.encode(JSON.stringify(event)), event.failureId);
    } catch (error) {
      this.streamReady = undefined;
      if (Date.now() - this.lastWarning < 10_000) return;
      this.lastWarning = Date.now();
      this.logger.warn(`Failed request ${event.requestId} not recorded: ${(error as Error).message}`);
    }
  }
}
