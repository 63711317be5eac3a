import { AckPolicy, DeliverPolicy, jetstream, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { JETSTREAM, type UsageRecordedEvent } from '@gw/contracts';
import {
  classifyStoreError,
  DeadLetterPublisher,
  type ResilientNatsConnection,
  type StoreErrorKind,
  type UsagePrincipalVerifier,
  type UsageRefusal,
} from '@gw/messaging';
import { counter } from '@gw/metrics';
import { parseUsageEvents } from './usage-event.js';
import { ensureUsageStream } from './usage-stream.js';

/** Events a consumer gave up on and moved to DEAD_LETTERS, for alerting. */
const deadLettered = counter('jetstream_dead_lettered_events_total', 'Events moved to the DEAD_LETTERS stream after their last delivery', [
  'stream',
  'consumer',
]);
/** Events whose principal did not prove the gateway authorised them: dead-lettered, never counted. */
const refusedEvents = counter('usage_events_refused_total', 'Usage events dead-lettered because their principal did not match', [
  'consumer',
  'reason',
]);

export interface UsageStreamLogger {
  warn(message: string): void;
  error(message: string): void;
}

export interface UsageStreamConsumerOptions<Item = UsageRecordedEvent> {
  /** Durable consumer name: replicas sharing it share the events, each delivered to one of them. */
  durableName: string;
  filterSubject: string;
  /** Most events handed to `write` at once. */
  batchSize: number;
  /** Longest a received event waits for its batch to fill. */
  batchWaitMs: number;
  /** Unacknowledged events the server hands the consumer at once (across replicas). */
  maxAckPending: number;
  /**
   * Deliveries after which an event that still cannot be stored (alone) goes to DEAD_LETTERS and
   * its message is terminated. The consumer's `max_deliver` is set above it (3x) as a backstop.
   */
  maxDeliveries?: number;
  /** Stores a batch of events atomically; a throw leaves the batch unstored (it is then split to find the culprit). */
  write(events: Item[]): Promise<void>;
  /** One message as its items, null for poison; defaults to `parseUsageEvents` (for another subject of the stream). */
  parse?(payload: Uint8Array, onInvalid: (index: number) => void): Item[] | null;
  /** An item's id in logs and dead letters; defaults to the usage event's generation id. */
  idOf?(item: Item): string;
  /** Transient (retry all, no split), permanent (this data cannot be stored) or unknown; defaults to `classifyStoreError`. */
  classifyError?(error: unknown): StoreErrorKind;
  logger: UsageStreamLogger;
  /** For tests: how long to wait before subscribing again after a failure. */
  retryMs?: number;
  /** For tests: the first nak delay (doubles per delivery up to 30 s). */
  nakDelayMs?: number;
  /**
   * Checks each event's principal: one that fails goes to DEAD_LETTERS at once with its
   * reason and is never written. Unset on a bus without credentials, where nothing is signed.
   */
  principals?: UsagePrincipalVerifier;
}

export interface UsageStreamConsumerStats {
  /** Events whose messages went to DEAD_LETTERS. */
  deadLettered: number;
  /** Messages terminated as malformed. */
  malformed: number;
  /** Events dead-lettered because their principal did not prove the gateway authorised them. */
  refused: number;
}

const ACK_WAIT_NS = 30 * 1_000_000_000;
const MAX_NAK_DELAY_MS = 30_000;
/** While the store is down the held batch is retried in-process; its ack wait is renewed (working) more often than 30 s. */
const MAX_OUTAGE_RETRY_MS = 10_000;
export const DEFAULT_MAX_DELIVERIES = 5;

interface Unit<Item> {
  message: JsMsg;
  item: Item;
}

interface Failure<Item> {
  unit: Unit<Item>;
  error: unknown;
  kind: StoreErrorKind;
}

/**
 * A durable pull consumer of the USAGE stream that parses each message into its usage events
 * (`parseUsageEvents`, the compiled validator) and hands them to `write` in batches (by
 * size or after `batchWaitMs`), one batch at a time, and acks a message only after its events
 * were written. With an idempotent `write` (ON CONFLICT DO NOTHING on the generation id) every
 * event counts exactly once however often it is delivered: a replica that dies before its ack
 * leaves the events to be redelivered and skipped. One batch per database transaction is what
 * makes this cheap: a transaction per event was a measurable share of management's CPU under load.
 *
 * When a batch fails:
 * - a transient error (the database unreachable, a deadlock) retries the whole batch in this
 *   process with a backoff, renewing the messages' ack wait, without consuming more; delivery
 *   counts do not grow during an outage;
 * - otherwise the batch is split in halves until the events that fail alone are found; the rest
 *   are written and acked. An event that fails alone with a permanent error (PostgreSQL data or
 *   constraint errors), or while others were written, is poison: its message is nak'ed with a
 *   growing delay and, at delivery `maxDeliveries`, copied to DEAD_LETTERS (original bytes,
 *   reason, consumer, delivery count), logged on one line, counted, and terminated.
 * Malformed messages are terminated at once.
 */
export class UsageStreamConsumer<Item = UsageRecordedEvent> {
  private stopped = false;
  private messages?: ConsumerMessages;
  private buffer: JsMsg[] = [];
  private timer?: NodeJS.Timeout;
  private writing: Promise<void> = Promise.resolve();
  private running?: Promise<void>;
  private readonly counts: UsageStreamConsumerStats = { deadLettered: 0, malformed: 0, refused: 0 };
  private readonly maxDeliveries: number;
  private readonly deadLetters: DeadLetterPublisher;
  private readonly classify: (error: unknown) => StoreErrorKind;
  private readonly parse: (payload: Uint8Array, onInvalid: (index: number) => void) => Item[] | null;
  private readonly idOf: (item: Item) => string;
  private wakeOutageRetry?: () => void;

  constructor(
    private readonly nats: ResilientNatsConnection,
    private readonly options: UsageStreamConsumerOptions<Item>,
  ) {
    this.parse =
      options.parse ?? (parseUsageEvents as unknown as (payload: Uint8Array, onInvalid: (index: number) => void) => Item[] | null);
    this.idOf = options.idOf ?? ((item) => (item as UsageRecordedEvent).generationId);
    this.maxDeliveries = Math.max(1, options.maxDeliveries ?? DEFAULT_MAX_DELIVERIES);
    this.deadLetters = new DeadLetterPublisher(nats.connection, nats.jetstream);
    this.classify = options.classifyError ?? classifyStoreError;
  }

  /** Not awaited by callers: a service answers requests while JetStream is still coming up. */
  start(): void {
    this.running ??= this.run();
  }

  stats(): UsageStreamConsumerStats {
    return { ...this.counts };
  }

  /** Stops taking events, then writes and acks what was already received (a batch held by an outage is nak'ed). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeOutageRetry?.();
    await this.messages?.close();
    await this.running;
    this.flush();
    await this.writing;
    this.deadLetters.close();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      try {
        // While a batch is held by a store outage, take nothing more: it would only wait past its ack wait.
        await this.writing;
        await this.consume();
      } catch (error) {
        if (this.stopped) return;
        this.options.logger.warn(`Usage consumer ${this.options.durableName} interrupted (${(error as Error).message}); retrying`);
      }
      if (!this.stopped) await new Promise((resolve) => setTimeout(resolve, this.options.retryMs ?? 1_000));
    }
  }

  private async consume(): Promise<void> {
    const { durableName, filterSubject, maxAckPending, batchSize } = this.options;
    const manager = await ensureUsageStream(this.nats.connection, this.nats.jetstream);
    const maxDeliver = this.maxDeliveries * 3;
    const existing = await manager.consumers.info(JETSTREAM.usageStream, durableName).catch(() => null);
    if (!existing) {
      await manager.consumers.add(JETSTREAM.usageStream, {
        durable_name: durableName,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        filter_subject: filterSubject,
        max_ack_pending: maxAckPending,
        ack_wait: ACK_WAIT_NS,
        max_deliver: maxDeliver,
        // Explicit rather than inherited from the stream: a consumer on fewer nodes than its stream stops with them.
        num_replicas: this.nats.jetstream.replicas,
      });
    } else {
      // A consumer made before delivery limits existed (max_deliver -1: forever), or with fewer
      // copies than configured (0: it follows its stream, already raised by ensureUsageStream).
      const replicas = this.nats.jetstream.replicas;
      const current = existing.config.num_replicas ?? 0;
      const fewer = current > 0 && current < replicas;
      if (existing.config.max_deliver !== maxDeliver || fewer) {
        this.options.logger.warn(
          `${durableName}: max_deliver ${existing.config.max_deliver}, ${existing.config.num_replicas} replica(s); updating to ${maxDeliver}, ${replicas}`,
        );
        await manager.consumers
          .update(JETSTREAM.usageStream, durableName, { max_deliver: maxDeliver, ...(fewer ? { num_replicas: replicas } : {}) })
          .catch((error: Error) => this.options.logger.warn(`${durableName}: could not update it (${error.message})`));
      }
    }
    const consumer = await jetstream(this.nats.connection).consumers.get(JETSTREAM.usageStream, durableName);
    this.messages = await consumer.consume({ max_messages: batchSize * 2 });
    if (this.stopped) await this.messages.close();
    for await (const message of this.messages) {
      this.buffer.push(message);
      if (this.buffer.length >= batchSize) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.options.batchWaitMs);
    }
  }

  /** Hands the buffered messages to the (serialised) writer. */
  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    this.writing = this.writing.then(() =>
      this.write(batch).catch((error: unknown) => {
        // Not expected (write handles its failures); the messages are redelivered after their ack wait.
        this.options.logger.error(`${this.options.durableName}: batch abandoned: ${describe(error)}`);
      }),
    );
  }

  private async write(batch: JsMsg[]): Promise<void> {
    const { logger, durableName } = this.options;
    let units: Array<Unit<Item>> = [];
    for (const message of batch) {
      const parsed = this.parse(message.data, (index) => logger.error(`${durableName}: left out invalid usage event #${index} of a batch`));
      if (parsed === null) {
        logger.error(`${durableName}: terminated a malformed usage event (stream sequence ${message.seq})`);
        this.counts.malformed++;
        // No reason string: servers before 2.10.4 ignore `+TERM <reason>` and would redeliver.
        message.term();
        continue;
      }
      for (const item of parsed) units.push({ message, item });
    }
    if (this.options.principals) units = await this.refuseUnproven(units);
    if (units.length === 0) return;
    const allUnits = units;

    let outageRetries = 0;
    const stored = new Set<Unit<Item>>();
    for (;;) {
      const failures = await this.writeSplitting(units, stored);
      const somethingStored = stored.size > 0;
      const systemic = failures.some((failure) => failure.kind === 'transient' || (failure.kind === 'unknown' && !somethingStored));
      if (failures.length === 0 || !systemic) {
        await this.settle(batch, allUnits, failures);
        return;
      }
      // The store itself is failing (down, overloaded): nothing here is poison. Hold the batch.
      if (this.stopped) {
        for (const message of new Set(failures.map((failure) => failure.unit.message))) message.nak();
        return;
      }
      if (outageRetries === 0) void this.messages?.close(); // consume no more until this batch is stored
      const delay = Math.min(MAX_OUTAGE_RETRY_MS, 500 * 2 ** Math.min(5, outageRetries++));
      logger.warn(
        `${durableName}: ${failures.length} usage event(s) not stored yet (${describe(failures[0]!.error)}), retrying in ${delay} ms`,
      );
      for (const message of new Set(units.map((unit) => unit.message))) message.working();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wakeOutageRetry = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wakeOutageRetry = undefined;
      units = failures.map((failure) => failure.unit);
    }
  }

  /**
   * Dead-letters the events whose principal does not prove the gateway authorised them (a
   * deterministic refusal: no retries), terminating a message none of whose events is left, and
   * returns the others. A message whose letter could not be stored is nak'ed whole.
   */
  private async refuseUnproven(units: Array<Unit<Item>>): Promise<Array<Unit<Item>>> {
    const { logger, durableName } = this.options;
    const refusedBy = new Map<JsMsg, Array<{ unit: Unit<Item>; reason: UsageRefusal }>>();
    for (const unit of units) {
      const reason = this.options.principals!.refusal(unit.item as UsageRecordedEvent, unit.message.time.getTime());
      if (reason) refusedBy.set(unit.message, [...(refusedBy.get(unit.message) ?? []), { unit, reason }]);
    }
    if (refusedBy.size === 0) return units;
    const dropped = new Set<JsMsg>();
    for (const [message, refused] of refusedBy) {
      const ids = refused.map(({ unit }) => this.idOf(unit.item));
      const reasons = [...new Set(refused.map(({ reason }) => reason))];
      try {
        await this.deadLetters.publish({
          stream: JETSTREAM.usageStream,
          consumer: durableName,
          subject: message.subject,
          sequence: message.seq,
          deliveries: message.info.deliveryCount,
          reason: reasons.join(','),
          items: ids,
          payload: message.data,
          // Apart from a later letter of the same message's good events (a store error): both are kept.
          id: `${durableName}:${message.seq}:refused`,
        });
      } catch (error) {
        logger.error(
          `${durableName}: could not dead-letter refused stream sequence ${message.seq} (${describe(error)}); it will be redelivered`,
        );
        message.nak(MAX_NAK_DELAY_MS);
        dropped.add(message);
        continue;
      }
      this.counts.refused += refused.length;
      for (const { reason } of refused) refusedEvents.inc({ consumer: durableName, reason });
      // Ids and reasons only: the token proves nothing to a reader of logs but is not theirs to see.
      logger.warn(`${durableName}: refused usage event(s) ${ids.join(',')} (stream sequence ${message.seq}): ${reasons.join(',')}`);
      const kept = units.some((unit) => unit.message === message && !refused.some((entry) => entry.unit === unit));
      if (!kept) {
        message.term();
        dropped.add(message);
      }
    }
    return units.filter((unit) => !dropped.has(unit.message) && !refusedBy.get(unit.message)?.some((entry) => entry.unit === unit));
  }

  /**
   * Writes the units, and when that fails with anything but a transient error, each half
   * alone, down to single events: the failures returned are the events that fail alone
   * (or the whole set, when the error was transient). `stored` collects what was written.
   */
  private async writeSplitting(units: Array<Unit<Item>>, stored: Set<Unit<Item>>): Promise<Array<Failure<Item>>> {
    try {
      await this.options.write(units.map((unit) => unit.item));
      for (const unit of units) stored.add(unit);
      return [];
    } catch (error) {
      const kind = this.classify(error);
      if (units.length === 1 || kind === 'transient') return units.map((unit) => ({ unit, error, kind }));
      const middle = Math.ceil(units.length / 2);
      const first = await this.writeSplitting(units.slice(0, middle), stored);
      const second = await this.writeSplitting(units.slice(middle), stored);
      return [...first, ...second];
    }
  }

  /** Acks the messages whose every event was stored; naks or dead-letters the others. */
  private async settle(batch: JsMsg[], units: Array<Unit<Item>>, failures: Array<Failure<Item>>): Promise<void> {
    const { logger, durableName } = this.options;
    const failedBy = new Map<JsMsg, Array<Failure<Item>>>();
    for (const failure of failures) failedBy.set(failure.unit.message, [...(failedBy.get(failure.unit.message) ?? []), failure]);
    const carrying = new Set(units.map((unit) => unit.message));
    for (const message of batch) {
      if (!carrying.has(message)) continue; // terminated as malformed
      const failed = failedBy.get(message);
      if (!failed) {
        message.ack();
        continue;
      }
      const deliveries = message.info.deliveryCount;
      const ids = failed.map((failure) => this.idOf(failure.unit.item));
      const reason = describe(failed[0]!.error);
      if (deliveries < this.maxDeliveries) {
        const delay = Math.min(MAX_NAK_DELAY_MS, (this.options.nakDelayMs ?? 1_000) * 2 ** Math.min(5, deliveries - 1));
        logger.warn(
          `${durableName}: usage event(s) ${ids.join(',')} not stored (delivery ${deliveries} of ${this.maxDeliveries}), retrying in ${delay} ms: ${reason}`,
        );
        message.nak(delay);
        continue;
      }
      try {
        await this.deadLetters.publish({
          stream: JETSTREAM.usageStream,
          consumer: durableName,
          subject: message.subject,
          sequence: message.seq,
          deliveries,
          reason,
          items: ids,
          payload: message.data,
        });
      } catch (error) {
        logger.error(`${durableName}: could not dead-letter stream sequence ${message.seq} (${describe(error)}); it will be redelivered`);
        message.nak(MAX_NAK_DELAY_MS);
        continue;
      }
      this.counts.deadLettered += failed.length;
      deadLettered.inc({ stream: JETSTREAM.usageStream, consumer: durableName }, failed.length);
      logger.warn(
        `${durableName}: dead-lettered usage event(s) ${ids.join(',')} (stream sequence ${message.seq}, delivery ${deliveries}): ${reason}`,
      );
      message.term();
    }
  }
}

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  // Prisma's messages span lines (the statement, the position): the last line says what PostgreSQL said.
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  return (lines.at(-1) ?? 'unknown error').slice(0, 300);
}
