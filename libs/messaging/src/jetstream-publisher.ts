import { headers as natsHeaders, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { connectionInbox } from './nats-connection.js';

/** JetStream's answer to a publish (a PubAck), or its refusal. */
interface PubAckReply {
  stream?: string;
  seq?: number;
  duplicate?: boolean;
  error?: { code?: number; description?: string };
}

interface PendingPublish {
  resolve: (ack: { seq: number; duplicate: boolean }) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
  /** Sends the message again (same id: JetStream drops a second copy). */
  send: () => void;
  /** The last answer was "no responders": said in the timeout's error. */
  noStream?: boolean;
  /** When it was last sent: a publish unanswered for a while is sent again. */
  sentAt: number;
}

/** Pause before sending again a message no stream leader took (an election in progress). */
const NO_LEADER_RETRY_MS = 250;
/** Silence this long (a message or its ack lost with a node or a reconnect) sends it again. */
const UNANSWERED_RESEND_MS = 2_000;

const encoder = new TextEncoder();

/**
 * Publishes to a JetStream stream and waits for its PubAck, with `Nats-Msg-Id` for
 * de-duplication: what `jetstream(nc).publish()` does, over one multiplexed reply subscription
 * instead of a request per message. The library's publish goes through `nc.request()`, which
 * builds two Error objects (with stack traces) per call: visible in inference's profile under
 * bench load, where every generation publishes one usage event.
 * No stream listening (no responders) is retried within the timeout: on a cluster that is a
 * leader election, over in seconds, and a publish that waits it out is not an error. A publish
 * left unanswered is sent again by one sweep per publisher, not a timer per message.
 */
export class JetStreamPublisher {
  private readonly pending = new Map<string, PendingPublish>();
  private readonly inboxPrefix: string;
  private readonly subscription: Subscription;
  private readonly resendSweep: NodeJS.Timeout;
  private sequence = 0;

  constructor(
    private readonly connection: NatsConnection,
    private readonly timeoutMs: number,
  ) {
    this.inboxPrefix = `${connectionInbox(connection)}.`;
    this.subscription = connection.subscribe(`${this.inboxPrefix}*`, { callback: (_error, message) => this.onReply(message) });
    this.resendSweep = setInterval(() => this.resendUnanswered(), UNANSWERED_RESEND_MS / 2).unref();
  }

  /** Resolves with the stream sequence once stored (`duplicate` when the id was seen in the window). */
  publish(subject: string, payload: string, messageId: string): Promise<{ seq: number; duplicate: boolean }> {
    return this.publishBytes(subject, encoder.encode(payload), messageId);
  }

  /** The same with raw bytes and headers of the caller's (`Nats-Msg-Id` is set on them). */
  publishBytes(
    subject: string,
    payload: Uint8Array,
    messageId: string,
    headers: MsgHdrs = natsHeaders(),
  ): Promise<{ seq: number; duplicate: boolean }> {
    const id = (++this.sequence).toString(36);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const call = this.pending.get(id);
        this.pending.delete(id);
        const why = call?.noStream ? ' (no stream is listening on it)' : '';
        reject(new Error(`JetStream did not acknowledge ${subject} within ${this.timeoutMs} ms${why}`));
      }, this.timeoutMs);
      headers.set('Nats-Msg-Id', messageId);
      const send = () => {
        try {
          pending.sentAt = Date.now();
          this.connection.publish(subject, payload, { reply: this.inboxPrefix + id, headers });
        } catch (error) {
          this.settle(id)?.reject(error as Error);
        }
      };
      const pending: PendingPublish = { resolve, reject, timer, send, sentAt: 0 };
      this.pending.set(id, pending);
      send();
    });
  }

  close(): void {
    clearInterval(this.resendSweep);
    this.subscription.unsubscribe();
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(new Error('publisher closed'));
  }

  private onReply(message: Msg): void {
    const id = message.subject.slice(this.inboxPrefix.length);
    if (message.headers?.hasError && message.headers.code === 503) {
      const waiting = this.pending.get(id);
      if (!waiting) return;
      waiting.noStream = true;
      setTimeout(() => this.pending.get(id) === waiting && waiting.send(), NO_LEADER_RETRY_MS);
      return;
    }
    const call = this.settle(id);
    if (!call) return; // late answer after a timeout
    let ack: PubAckReply;
    try {
      ack = message.json<PubAckReply>();
    } catch {
      call.reject(new Error('JetStream sent an unreadable acknowledgement'));
      return;
    }
    if (ack.error || typeof ack.seq !== 'number')
      call.reject(new Error(`JetStream refused the message: ${ack.error?.description ?? 'no sequence'}`));
    else call.resolve({ seq: ack.seq, duplicate: ack.duplicate === true });
  }

  private resendUnanswered(): void {
    const before = Date.now() - UNANSWERED_RESEND_MS;
    for (const call of this.pending.values()) if (call.sentAt <= before) call.send();
  }

  private settle(id: string): PendingPublish | undefined {
    const call = this.pending.get(id);
    if (!call) return undefined;
    this.pending.delete(id);
    clearTimeout(call.timer);
    return call;
  }
}
