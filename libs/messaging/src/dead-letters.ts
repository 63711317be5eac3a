import { jetstreamManager, RetentionPolicy, type JetStreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { JETSTREAM } from '@gw/contracts';
import { ensureStream, type JetStreamPlacement } from './jetstream-placement.js';
import { JetStreamPublisher } from './jetstream-publisher.js';

/** Dead letters are kept 30 days: long enough to notice, fix and replay. */
const DEAD_LETTER_MAX_AGE_NS = 30 * 24 * 3600 * 1_000_000_000;
const DUPLICATE_WINDOW_NS = 10 * 60 * 1_000_000_000;
/** A database error can quote the value it refused: the reason is cut, never a whole payload. */
const MAX_REASON_CHARS = 300;

/** Headers of a dead letter (its body is the original message's bytes, unchanged). */
export const DEAD_LETTER_HEADERS = {
  reason: 'Gw-Dead-Reason',
  consumer: 'Gw-Dead-Consumer',
  stream: 'Gw-Dead-Stream',
  subject: 'Gw-Dead-Subject',
  sequence: 'Gw-Dead-Sequence',
  deliveries: 'Gw-Dead-Deliveries',
  /** The ids of the events of the message that could not be stored (a batch message may carry good ones too). */
  items: 'Gw-Dead-Items',
} as const;

/** `dead.<stream>.<consumer>`: one subject per origin, so an operator can read or replay one consumer's letters. */
export function deadLetterSubject(stream: string, consumer: string): string {
  return `${JETSTREAM.deadLetterSubjectPrefix}.${stream}.${consumer}`;
}

/** Creates the DEAD_LETTERS stream (`dead.>`, 30 days) with `placement`'s replicas, or raises an existing one's. */
export async function ensureDeadLetterStream(connection: NatsConnection, placement: JetStreamPlacement): Promise<JetStreamManager> {
  const manager = await jetstreamManager(connection);
  await ensureStream(
    manager,
    {
      name: JETSTREAM.deadLetterStream,
      subjects: [`${JETSTREAM.deadLetterSubjectPrefix}.>`],
      retention: RetentionPolicy.Limits,
      max_age: DEAD_LETTER_MAX_AGE_NS,
      duplicate_window: DUPLICATE_WINDOW_NS,
    },
    placement,
  );
  return manager;
}

export interface DeadLetter {
  stream: string;
  consumer: string;
  subject: string;
  /** Stream sequence of the original message (also its de-duplication id with the consumer's name). */
  sequence: number;
  deliveries: number;
  reason: string;
  items: string[];
  payload: Uint8Array;
  /** Its `Nats-Msg-Id` when not `<consumer>:<sequence>`: a second letter of the same message for another cause. */
  id?: string;
}

/**
 * Stores messages a consumer gave up on in DEAD_LETTERS, acknowledged (PubAck) before the
 * consumer terminates the original, so a letter is never lost between the two. The same
 * original dead-lettered twice (a replica died between the PubAck and the `term`) is one
 * letter: `Nats-Msg-Id` is `<consumer>:<stream sequence>`.
 */
export class DeadLetterPublisher {
  private readonly publisher: JetStreamPublisher;
  private streamReady?: Promise<unknown>;

  constructor(
    private readonly connection: NatsConnection,
    private readonly placement: JetStreamPlacement,
    timeoutMs = 5_000,
  ) {
    this.publisher = new JetStreamPublisher(connection, timeoutMs);
  }

  async publish(letter: DeadLetter): Promise<void> {
    this.streamReady ??= ensureDeadLetterStream(this.connection, this.placement);
    try {
      await this.streamReady;
      const headers = natsHeaders();
      headers.set(DEAD_LETTER_HEADERS.reason, oneLine(letter.reason).slice(0, MAX_REASON_CHARS));
      headers.set(DEAD_LETTER_HEADERS.consumer, letter.consumer);
      headers.set(DEAD_LETTER_HEADERS.stream, letter.stream);
      headers.set(DEAD_LETTER_HEADERS.subject, letter.subject);
      headers.set(DEAD_LETTER_HEADERS.sequence, String(letter.sequence));
      headers.set(DEAD_LETTER_HEADERS.deliveries, String(letter.deliveries));
      if (letter.items.length > 0) headers.set(DEAD_LETTER_HEADERS.items, letter.items.join(',').slice(0, 4_000));
      await this.publisher.publishBytes(
        deadLetterSubject(letter.stream, letter.consumer),
        letter.payload,
        letter.id ?? `${letter.consumer}:${letter.sequence}`,
        headers,
      );
    } catch (error) {
      this.streamReady = undefined;
      throw error;
    }
  }

  close(): void {
    this.publisher.close();
  }
}

/** Header values cannot carry line breaks. */
function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim() || 'unknown';
}
