import { createInbox, type Msg, type Subscription } from '@nats-io/transport-node';
import { fromRpcError, GatewayError, isRpcErrorPayload } from '@gw/errors';
import type { ResilientNatsConnection } from './nats-connection.js';
import { RpcStream, type RpcStreamOptions } from './rpc-stream.js';

/** The reply packet NestJS microservices send back over NATS. */
interface NestReplyPacket {
  id?: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}

interface PendingCall {
  resolve: (value: unknown) => void;
  reject: (error: GatewayError) => void;
  timer: NodeJS.Timeout;
  subject: string;
}

const encoder = new TextEncoder();

/**
 * Request-reply to NestJS microservices over NATS, speaking Nest's wire format
 * (`{pattern, data, id}` out, `{response | err, isDisposed, id}` back), with one
 * multiplexed reply subscription for every call (ADR 0003):
 * - no service subscribed: NATS' no-responders status, a 503 at once;
 * - no reply in time: 504;
 * - bus down: 503 at once, and calls work again when NATS is back.
 * It does less per call than ClientProxy (no inbox subscription per request) and far less
 * than `nc.request()` (which builds two Error objects, with stack traces, per call).
 */
export class RpcClient {
  private readonly pending = new Map<string, PendingCall>();
  private readonly streams = new Map<string, RpcStream<unknown>>();
  private readonly inboxPrefix: string;
  private readonly subscription: Subscription;
  private sequence = 0;

  constructor(
    private readonly nats: ResilientNatsConnection,
    private readonly defaultTimeoutMs: number,
  ) {
    this.inboxPrefix = `${createInbox()}.`;
    this.subscription = nats.connection.subscribe(`${this.inboxPrefix}*`, { callback: (_error, message) => this.onReply(message) });
  }

  send<T>(subject: string, data: unknown, timeoutMs = this.defaultTimeoutMs): Promise<T> {
    if (!this.nats.isConnected()) return Promise.reject(serviceUnavailable('Message bus unavailable'));
    const id = (++this.sequence).toString(36);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(
          new GatewayError(504, `Internal request timed out after ${timeoutMs} ms`, {
            errorType: 'timeout',
            metadata: { reason: 'timeout', retryable: true },
          }),
        );
      }, timeoutMs);
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, timer, subject });
      try {
        this.nats.connection.publish(subject, encoder.encode(JSON.stringify({ pattern: subject, data, id })), {
          reply: this.inboxPrefix + id,
        });
      } catch {
        this.settle(id)?.reject(serviceUnavailable('Message bus unavailable'));
      }
    });
  }

  /**
   * A streamed call to a handler that returns an Observable: Nest sends one `{response, id}`
   * packet per emission and a final `isDisposed: true` (merged into the last packet when it
   * is still queued), or `{err}` when the Observable fails. The returned iterator yields the
   * responses in order and rejects with the error (no responders 503, bus down 503, timeouts
   * 504, or the service's own error) after the packets before it. Breaking out of it drops
   * later packets; it does not stop the service (see EVENTS.streamCancelled).
   */
  stream<T>(subject: string, data: unknown, options: RpcStreamOptions): RpcStream<T> {
    const id = (++this.sequence).toString(36);
    const stream = new RpcStream<T>(subject, options, () => this.streams.delete(id));
    if (!this.nats.isConnected()) {
      stream.fail(serviceUnavailable('Message bus unavailable'));
      return stream;
    }
    this.streams.set(id, stream as RpcStream<unknown>);
    try {
      this.nats.connection.publish(subject, encoder.encode(JSON.stringify({ pattern: subject, data, id })), {
        reply: this.inboxPrefix + id,
      });
    } catch {
      stream.fail(serviceUnavailable('Message bus unavailable'));
    }
    return stream;
  }

  close(): void {
    this.subscription.unsubscribe();
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(serviceUnavailable('Client closed'));
    for (const stream of [...this.streams.values()]) stream.fail(serviceUnavailable('Client closed'));
  }

  private onReply(message: Msg): void {
    const id = message.subject.slice(this.inboxPrefix.length);
    const call = this.settle(id);
    if (!call) {
      const stream = this.streams.get(id);
      // Otherwise: a late reply after a timeout, or a packet of a stream nobody reads any more.
      if (stream) onStreamPacket(stream, message);
      return;
    }
    if (message.headers?.hasError && message.headers.code === 503) {
      call.reject(serviceUnavailable(`No service is answering ${call.subject.split('.')[0]} requests`));
      return;
    }
    let reply: NestReplyPacket;
    try {
      reply = message.json<NestReplyPacket>();
    } catch {
      call.reject(new GatewayError(500, 'Internal server error'));
      return;
    }
    if (reply.err !== undefined && reply.err !== null) {
      call.reject(isRpcErrorPayload(reply.err) ? fromRpcError(reply.err) : new GatewayError(500, 'Internal server error'));
    } else {
      call.resolve(reply.response);
    }
  }

  private settle(id: string): PendingCall | undefined {
    const call = this.pending.get(id);
    if (!call) return undefined;
    this.pending.delete(id);
    clearTimeout(call.timer);
    return call;
  }
}

function onStreamPacket(stream: RpcStream<unknown>, message: Msg): void {
  if (message.headers?.hasError && message.headers.code === 503) {
    stream.fail(serviceUnavailable(`No service is answering ${stream.subject.split('.')[0]} requests`));
    return;
  }
  let packet: NestReplyPacket;
  try {
    packet = message.json<NestReplyPacket>();
  } catch {
    stream.fail(new GatewayError(500, 'Internal server error'));
    return;
  }
  if (packet.err !== undefined && packet.err !== null) {
    stream.fail(isRpcErrorPayload(packet.err) ? fromRpcError(packet.err) : new GatewayError(500, 'Internal server error'));
    return;
  }
  if ('response' in packet) stream.push(packet.response);
  if (packet.isDisposed === true) stream.end();
}

function serviceUnavailable(message: string): GatewayError {
  return new GatewayError(503, message, { errorType: 'server', metadata: { reason: 'service_unavailable', retryable: true } });
}
