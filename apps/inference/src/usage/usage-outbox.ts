import type { UsageRecordedEvent } from '@gw/contracts';

/** Sends one event and resolves once JetStream has acknowledged it (stored, or a known duplicate). */
export type UsagePublish = (event: UsageRecordedEvent) => Promise<void>;

export interface UsageOutboxOptions {
  /** Events held (queued, in flight or waiting to retry); past it, new events are dropped. */
  maxPending: number;
  /** Publishes in flight at once. */
  concurrency?: number;
  /** First retry delay after a failed publish; doubles up to `maxRetryDelayMs`. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  onDrop?: (event: UsageRecordedEvent) => void;
  onPublishError?: (error: unknown, event: UsageRecordedEvent) => void;
}

export interface UsageOutboxStats {
  pending: number;
  published: number;
  dropped: number;
  retries: number;
}

/**
 * Usage events on their way to JetStream, off the request path: `enqueue` returns at once,
 * and a pump publishes in the background until each event is acknowledged, retrying with
 * backoff while NATS or the stream is unavailable. Each event's `Nats-Msg-Id` is its
 * generation id, so a retry of a publish whose ack was lost is dropped by JetStream as a
 * duplicate. Bounded: when `maxPending` events are held, a new one is dropped (and counted)
 * rather than letting memory grow without limit during a long outage. `flush` waits for the
 * queue to empty, for shutdown.
 */
export class UsageOutbox {
  private readonly queue: UsageRecordedEvent[] = [];
  private inFlight = 0;
  private waitingRetry = 0;
  private failuresInARow = 0;
  private readonly counts = { published: 0, dropped: 0, retries: 0 };
  private readonly idleWaiters: Array<() => void> = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly concurrency: number;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;

  constructor(
    private readonly publish: UsagePublish,
    private readonly options: UsageOutboxOptions,
  ) {
    this.concurrency = options.concurrency ?? 32;
    this.retryDelayMs = options.retryDelayMs ?? 200;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 5_000;
  }

  /** Queues an event; false when it was dropped because the outbox is full. */
  enqueue(event: UsageRecordedEvent): boolean {
    if (this.pending >= this.options.maxPending) {
      this.counts.dropped++;
      this.options.onDrop?.(event);
      return false;
    }
    this.queue.push(event);
    this.pump();
    return true;
  }

  get pending(): number {
    return this.queue.length + this.inFlight + this.waitingRetry;
  }

  stats(): UsageOutboxStats {
    return { pending: this.pending, ...this.counts };
  }

  /** Resolves when every held event is acknowledged, or after `timeoutMs` (false then). */
  async flush(timeoutMs: number): Promise<boolean> {
    if (this.pending === 0) return true;
    // Shutting down: retry now rather than after the backoff.
    this.failuresInARow = 0;
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<boolean>((resolve) => this.idleWaiters.push(() => resolve(true)));
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    try {
      return await Promise.race([idle, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Stops retry timers (events still held are lost: call flush first). */
  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  private pump(): void {
    while (this.inFlight < this.concurrency && this.queue.length > 0) {
      const event = this.queue.shift()!;
      this.inFlight++;
      this.publish(event).then(
        () => {
          this.inFlight--;
          this.failuresInARow = 0;
          this.counts.published++;
          this.afterSettle();
        },
        (error: unknown) => {
          this.inFlight--;
          this.options.onPublishError?.(error, event);
          this.retryLater(event);
          this.afterSettle();
        },
      );
    }
  }

  private retryLater(event: UsageRecordedEvent): void {
    this.counts.retries++;
    this.waitingRetry++;
    const delay = Math.min(this.maxRetryDelayMs, this.retryDelayMs * 2 ** Math.min(this.failuresInARow, 10));
    this.failuresInARow++;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.waitingRetry--;
      this.queue.push(event);
      this.pump();
    }, delay);
    timer.unref();
    this.timers.add(timer);
  }

  private afterSettle(): void {
    this.pump();
    if (this.pending === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
