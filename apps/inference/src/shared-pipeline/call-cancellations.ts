import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import type { Msg, Subscription } from '@nats-io/transport-node';
import { CallCancelledEvent, validateDto, CallCancelled } from '@gw/contracts';
import { ResilientNatsConnection } from '@gw/messaging';

/**
 * The streams (and non-streamed requests) this replica is running, by the id the gateway
 * minted, and the listener for CallCancelled. The event goes to every replica (a plain subscription, not the
 * service's queue group, since only the gateway's request knows which replica took the
 * stream); the one running it aborts the provider call, the others ignore it.
 */
/** Cancellations that arrived before their stream (the client left while the request was in flight). */
const EARLY_CANCELLATIONS_KEPT = 1_024;

@Injectable()
export class CallCancellations implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(CallCancellations.name);
  private readonly running = new Map<string, AbortController>();
  private readonly cancelledEarly = new Set<string>();
  private subscription: Subscription | undefined;

  /** Inference's client connection (NatsClientModule), which closes it. */
  constructor(private readonly nats: ResilientNatsConnection) {}

  onModuleInit(): void {
    this.subscription = this.nats.connection.subscribe(CallCancelled.subject, {
      callback: (_error, message) => void this.onCancelled(message),
    });
  }

  onModuleDestroy(): void {
    this.subscription?.unsubscribe();
  }

  /** A controller whose signal aborts the stream's provider call when the client goes away. */
  register(streamId: string): AbortController {
    const controller = new AbortController();
    if (this.cancelledEarly.delete(streamId)) controller.abort();
    else this.running.set(streamId, controller);
    return controller;
  }

  /** Runs `call` with a signal the gateway can abort by `requestId` (none without one). */
  async around<T>(requestId: string | undefined, call: (signal?: AbortSignal) => Promise<T>): Promise<T> {
    if (!requestId) return call();
    const controller = this.register(requestId);
    try {
      return await call(controller.signal);
    } finally {
      this.release(requestId, controller);
    }
  }

  release(streamId: string, controller: AbortController): void {
    if (this.running.get(streamId) === controller) this.running.delete(streamId);
  }

  /** True when this replica was running the stream. */
  cancel(streamId: string): boolean {
    const controller = this.running.get(streamId);
    if (!controller) {
      // Every replica hears every cancellation: remember a few in case the stream is ours and not started yet.
      this.cancelledEarly.add(streamId);
      if (this.cancelledEarly.size > EARLY_CANCELLATIONS_KEPT) this.cancelledEarly.delete(this.cancelledEarly.values().next().value!);
      return false;
    }
    controller.abort();
    this.running.delete(streamId);
    return true;
  }

  get runningCount(): number {
    return this.running.size;
  }

  private async onCancelled(message: Msg): Promise<void> {
    try {
      const event = await validateDto(CallCancelledEvent, message.json(), 'strip');
      if (this.cancel(event.streamId)) this.logger.debug({ streamId: event.streamId }, 'Stream cancelled by its client');
    } catch {
      this.logger.warn('Ignored a malformed stream-cancelled event');
    }
  }
}
