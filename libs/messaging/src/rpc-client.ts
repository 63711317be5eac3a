import { RequestError, TimeoutError } from '@nats-io/transport-node';
import { fromRpcError, GatewayError, isRpcErrorPayload } from '@gw/errors';
import { randomUUID } from 'node:crypto';
import type { ResilientNatsConnection } from './nats-connection.js';

/** The reply packet NestJS microservices send back over NATS. */
interface NestReplyPacket {
  id?: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}

const encoder = new TextEncoder();

/**
 * Request-reply to a NestJS microservice over NATS, speaking Nest's wire format
 * (`{pattern, data, id}` out, `{response | err, isDisposed, id}` back).
 *
 * It uses the connection's shared reply subscription (`nc.request`) instead of
 * ClientProxy's per-request inbox subscription, and gets NATS' no-responders signal, so
 * a missing service is a 503 at once rather than a timeout (ADR 0003).
 */
export class RpcClient {
  constructor(
    private readonly nats: ResilientNatsConnection,
    private readonly defaultTimeoutMs: number,
  ) {}

  async send<T>(subject: string, data: unknown, timeoutMs = this.defaultTimeoutMs): Promise<T> {
    if (!this.nats.isConnected()) throw serviceUnavailable('Message bus unavailable');
    const packet = encoder.encode(JSON.stringify({ pattern: subject, data, id: randomUUID() }));
    let reply: NestReplyPacket;
    try {
      const message = await this.nats.connection.request(subject, packet, { timeout: timeoutMs });
      reply = message.json<NestReplyPacket>();
    } catch (error) {
      throw translateTransportError(error, subject, timeoutMs);
    }
    if (reply.err !== undefined && reply.err !== null) {
      throw isRpcErrorPayload(reply.err) ? fromRpcError(reply.err) : new GatewayError(500, 'Internal server error');
    }
    return reply.response as T;
  }

  publish(subject: string, data: unknown): void {
    if (!this.nats.isConnected()) throw serviceUnavailable('Message bus unavailable');
    this.nats.connection.publish(subject, encoder.encode(JSON.stringify({ pattern: subject, data })));
  }
}

function serviceUnavailable(message: string): GatewayError {
  return new GatewayError(503, message, { errorType: 'server', metadata: { reason: 'service_unavailable', retryable: true } });
}

function translateTransportError(error: unknown, subject: string, timeoutMs: number): GatewayError {
  if (error instanceof RequestError && error.isNoResponders()) {
    return serviceUnavailable(`No service is answering ${subject.split('.')[0]} requests`);
  }
  if (error instanceof TimeoutError || (error instanceof RequestError && error.cause instanceof TimeoutError)) {
    return new GatewayError(504, `Internal request timed out after ${timeoutMs} ms`, {
      errorType: 'timeout',
      metadata: { reason: 'timeout', retryable: true },
    });
  }
  return serviceUnavailable('Message bus unavailable');
}
