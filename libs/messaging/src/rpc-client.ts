import { headers as natsHeaders, type Msg, type MsgHdrs, type Subscription } from '@nats-io/transport-node';
import type { RpcMessage, RpcStreamMessage } from '@gw/contracts';
import { fromRpcError, GatewayError, isRpcErrorPayload } from '@gw/errors';
import { randomFillSync } from 'node:crypto';
import { acceptingJson, REPLY_HEADER, type JsonText } from './json-reply.js';
import { EMPTY, LargeBodies, refHeaders, RPC_BODY_HEADER } from './large-bodies.js';
import { connectionInbox, type ResilientNatsConnection } from './nats-connection.js';
import { DEFAULT_LIVENESS_TIMEOUT_MS, RPC_PROGRESS_HEADER } from './rpc-liveness.js';
import { RpcStream, STREAM_HEADER, type RpcStreamOptions } from './rpc-stream.js';
import { requestResends, timedRequest } from './rpc-metrics.js';
import { STREAM_CREDIT_HEADER, STREAM_WINDOW_HEADER } from './stream-window.js';
import { endCallSpan, outgoingCall, withHeaders } from './trace-headers.js';
import { withPrincipal } from './principal/outgoing-principal.js';
import type { PrincipalSigner } from './principal/principal-signer.js';

/** The reply packet NestJS microservices send back over NATS. */
interface NestReplyPacket {
  id?: string;
  response?: unknown;
  err?: unknown;
  isDisposed?: boolean;
}

/** What the caller knows of the replica working on a call. */
interface Liveness {
  /** When the replica last spoke (a heartbeat or a packet), in ms since the epoch. */
  lastHeard: number;
  /** The replica passed the call's point of no return: it must not be sent elsewhere. */
  committed: boolean;
  /** How many more times the call may be sent to another replica while not committed. */
  resendsLeft: number;
  /** The encoded request, kept for a resend (only when resends are allowed). */
  bytes: Uint8Array | undefined;
  /** A request body over max_payload, in RPC_BODIES: resends refer to it too; deleted when the call ends. */
  bodyRef?: string;
  /** The request id and trace context sent with the call, sent again with a resend. */
  headers?: MsgHdrs;
}

interface PendingCall extends Liveness {
  resolve: (value: unknown) => void;
  reject: (error: GatewayError) => void;
  timer: NodeJS.Timeout;
  subject: string;
  /** Answered as the reply's JSON text (`sendJson`). */
  json: boolean;
  onReplyHeaders?: (headers: MsgHdrs) => void;
}

interface OpenStream extends Liveness {
  id: string;
  stream: RpcStream<unknown>;
  /** The first message of frames arrived: the messages after it without headers are frames too. */
  frames?: boolean;
}

export interface RpcClientOptions {
  /**
   * Silence (no heartbeat, no packet) after which the replica working on a call is taken for
   * dead (default 8 s; services beat every 2 s). 0 turns the check off.
   */
  livenessTimeoutMs?: number;
  /** Largest request sent inline; larger go through the object store (default: max_payload minus 16 KB). */
  inlineMaxBytes?: number;
  /**
   * A call made while the connection is reconnecting waits this long for it before its 503
   * (default 0: at once). The edge waits a second or two: a NATS node restarting is replaced by then.
   */
  reconnectWaitMs?: number;
  /** The gateway's: signs the principal of every call acting for a tenant. Services pass on the one they got instead. */
  principalSigner?: PrincipalSigner;
}

export interface RpcCallOptions {
  /**
   * When the replica dies before it marked the call committed (`markCommitted`), send the
   * call again, to another replica, up to this many times. Only for handlers whose work before
   * the commit point can safely run twice (inference: everything before the provider call).
   */
  resendUncommitted?: number;
  /** Called with the headers of the reply that answers the call (an answer's annotations, `JsonAnswer`). */
  onReplyHeaders?: (headers: MsgHdrs) => void;
}

type AnyRpcMessage = RpcMessage<unknown, unknown>;
type AnyRpcStreamMessage = RpcStreamMessage<unknown, unknown>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Request-reply to NestJS microservices over NATS, speaking Nest's wire format
 * (`{pattern, data, id}` out, `{response | err, isDisposed, id}` back), with one
 * multiplexed reply subscription for every call:
 * - no service subscribed: NATS' no-responders status, a 503 at once;
 * - no reply in time: 504;
 * - bus down: 503 at once, and calls work again when NATS is back.
 * It does less per call than ClientProxy (no inbox subscription per request) and far less
 * than `nc.request()` (which builds two Error objects, with stack traces, per call).
 */
export class RpcClient {
  private readonly pending = new Map<string, PendingCall>();
  private readonly streams = new Map<string, OpenStream>();
  private readonly inboxPrefix: string;
  private readonly subscription: Subscription;
  private readonly livenessTimeoutMs: number;
  private readonly sweeper: NodeJS.Timeout | undefined;
  private readonly bodies: LargeBodies;
  private readonly reconnectWaitMs: number;
  private readonly principalSigner: PrincipalSigner | undefined;
  /** Replies of a call that wait for a body from the object store, so later packets keep their order. */
  private readonly replyChains = new Map<string, Promise<void>>();
  private sequence = 0;

  constructor(
    private readonly nats: ResilientNatsConnection,
    private readonly defaultTimeoutMs: number,
    options: RpcClientOptions = {},
  ) {
    this.inboxPrefix = `${connectionInbox(nats.connection)}.`;
    this.subscription = nats.connection.subscribe(`${this.inboxPrefix}*`, { callback: (_error, message) => this.onReply(message) });
    this.livenessTimeoutMs = options.livenessTimeoutMs ?? DEFAULT_LIVENESS_TIMEOUT_MS;
    this.reconnectWaitMs = options.reconnectWaitMs ?? 0;
    this.principalSigner = options.principalSigner;
    this.bodies = new LargeBodies(nats.connection, { inlineMaxBytes: options.inlineMaxBytes, placement: nats.jetstream });
    if (this.livenessTimeoutMs > 0) {
      // One timer for every call: a call answered within the liveness timeout costs nothing more.
      this.sweeper = setInterval(() => this.sweep(), Math.min(1_000, Math.max(50, this.livenessTimeoutMs / 4)));
      this.sweeper.unref();
    }
  }

  /** A typed call: the payload must be the message's request, the promise holds its reply. */
  send<Request, Reply>(
    message: RpcMessage<Request, Reply>,
    data: NoInfer<Request>,
    timeoutMs?: number,
    options?: RpcCallOptions,
  ): Promise<Reply>;
  /** A call by bare subject, for subjects outside the contracts (tests, benches). */
  send<T>(subject: string, data: unknown, timeoutMs?: number, options?: RpcCallOptions): Promise<T>;
  send<T>(target: string | AnyRpcMessage, data: unknown, timeoutMs = this.defaultTimeoutMs, options: RpcCallOptions = {}): Promise<T> {
    return this.call<T>(typeof target === 'string' ? target : target.subject, data, timeoutMs, options, false);
  }

  /**
   * The same call, answered as the reply's JSON text, for a caller that forwards the answer
   * without reading it: the request says `Gw-Reply: json`, and the service replies with the
   * bytes of `JSON.stringify(answer)`, which are returned as they are (not parsed); an answer
   * that is nothing comes as a packet, stringified here. Errors are thrown as by `send`.
   */
  sendJson<Request, Reply>(
    message: RpcMessage<Request, Reply>,
    data: NoInfer<Request>,
    timeoutMs?: number,
    options?: RpcCallOptions,
  ): Promise<JsonText<Reply>>;
  sendJson<T>(subject: string, data: unknown, timeoutMs?: number, options?: RpcCallOptions): Promise<JsonText<T>>;
  sendJson<T>(
    target: string | AnyRpcMessage,
    data: unknown,
    timeoutMs = this.defaultTimeoutMs,
    options: RpcCallOptions = {},
  ): Promise<JsonText<T>> {
    return this.call<JsonText<T>>(typeof target === 'string' ? target : target.subject, data, timeoutMs, options, true);
  }

  private call<T>(subject: string, data: unknown, timeoutMs: number, options: RpcCallOptions, json: boolean, waited = false): Promise<T> {
    if (!this.nats.isConnected()) {
      if (waited || this.reconnectWaitMs <= 0) return Promise.reject(serviceUnavailable('Message bus unavailable'));
      return this.nats.whenConnected(this.reconnectWaitMs).then(() => this.call<T>(subject, data, timeoutMs, options, json, true));
    }
    const id = this.nextId();
    // The request id and, with tracing on, a client span whose context the service continues.
    const outgoing = outgoingCall(subject);
    const { span } = outgoing;
    const signed = withPrincipal(subject, data, outgoing.headers, this.principalSigner);
    const headers = json ? acceptingJson(signed) : signed;
    return timedRequest(
      subject,
      span,
      new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          this.pending.delete(call.id);
          reject(
            new GatewayError(504, `Internal request timed out after ${timeoutMs} ms`, {
              errorType: 'timeout',
              metadata: { reason: 'timeout', retryable: true },
            }),
          );
        }, timeoutMs);
        const resendsLeft = options.resendUncommitted ?? 0;
        const call: PendingCall & { id: string } = {
          id,
          resolve: resolve as (value: unknown) => void,
          reject,
          timer,
          subject,
          json,
          onReplyHeaders: options.onReplyHeaders,
          lastHeard: Date.now(),
          committed: false,
          resendsLeft,
          bytes: resendsLeft > 0 ? encoder.encode(JSON.stringify({ pattern: subject, data })) : undefined,
          headers,
        };
        this.pending.set(id, call);
        const bytes = packet(subject, data, call.bytes, id);
        if (this.bodies.tooLargeInline(bytes.length)) {
          void this.publishLarge(subject, bytes, id, call).then((sent) => {
            if (!sent) this.settle(id)?.reject(serviceUnavailable('Message bus unavailable'));
            else if (!this.pending.has(id) && call.bodyRef) this.bodies.delete(call.bodyRef); // ended meanwhile
          });
        } else if (!this.publish(subject, bytes, id, headers)) this.settle(id)?.reject(serviceUnavailable('Message bus unavailable'));
      }),
    );
  }

  /**
   * A streamed call to a handler that answers a `ServedStream`: the service sends frames, the
   * bytes for the caller's client (several frames a message), then the end, or an `{err}`
   * packet when it fails. The returned iterator yields the messages' bytes in order and rejects
   * with the error (no responders 503, bus down 503, timeouts 504, or the service's own error)
   * after the packets before it. Breaking out of it drops later packets; it does not stop the
   * service (see EVENTS.callCancelled).
   */
  stream<Request, Chunk>(
    message: RpcStreamMessage<Request, Chunk>,
    data: NoInfer<Request>,
    options: RpcStreamOptions & RpcCallOptions,
  ): RpcStream<Chunk>;
  stream<T>(subject: string, data: unknown, options: RpcStreamOptions & RpcCallOptions): RpcStream<T>;
  stream<T>(target: string | AnyRpcStreamMessage, data: unknown, options: RpcStreamOptions & RpcCallOptions): RpcStream<T> {
    const subject = typeof target === 'string' ? target : target.subject;
    const call = outgoingCall(subject);
    const { span } = call;
    let headers = withPrincipal(subject, data, call.headers, this.principalSigner);
    if (options.window) {
      // Flow control: at most this many bytes of the stream unread here.
      headers ??= natsHeaders();
      headers.set(STREAM_WINDOW_HEADER, String(options.window));
    }
    const open: OpenStream = {
      id: this.nextId(),
      stream: undefined as unknown as RpcStream<unknown>,
      lastHeard: Date.now(),
      committed: false,
      resendsLeft: options.resendUncommitted ?? 0,
      bytes: undefined,
      headers,
    };
    const stream = new RpcStream<T>(subject, options, (error) => {
      this.streams.delete(open.id);
      if (open.bodyRef) this.bodies.delete(open.bodyRef);
      if (span) endCallSpan(span, error);
    });
    open.stream = stream as RpcStream<unknown>;
    const start = () => {
      if (!this.nats.isConnected()) {
        stream.fail(serviceUnavailable('Message bus unavailable'));
        return;
      }
      open.lastHeard = Date.now();
      this.streams.set(open.id, open);
      if (open.resendsLeft > 0) open.bytes = encoder.encode(JSON.stringify({ pattern: subject, data }));
      const bytes = packet(subject, data, open.bytes, open.id);
      if (this.bodies.tooLargeInline(bytes.length)) {
        void this.publishLarge(subject, bytes, open.id, open).then((sent) => {
          if (!sent) stream.fail(serviceUnavailable('Message bus unavailable'));
        });
      } else if (!this.publish(subject, bytes, open.id, headers)) stream.fail(serviceUnavailable('Message bus unavailable'));
    };
    // Reconnecting: the stream starts once the connection is back, or fails when it is not in time.
    if (!this.nats.isConnected() && this.reconnectWaitMs > 0) void this.nats.whenConnected(this.reconnectWaitMs).then(start);
    else start();
    return stream;
  }

  close(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.subscription.unsubscribe();
    for (const id of [...this.pending.keys()]) this.settle(id)?.reject(serviceUnavailable('Client closed'));
    for (const open of [...this.streams.values()]) open.stream.fail(serviceUnavailable('Client closed'));
  }

  /**
   * The reply subject's last token: a counter and a random part. Services may publish into the
   * inboxes of the users they serve, so a reply subject must not be guessable from
   * one seen before: a service that saw one of our requests cannot answer another one.
   */
  private nextId(): string {
    return `${(++this.sequence).toString(36)}-${randomToken()}`;
  }

  private publish(subject: string, bytes: Uint8Array, id: string, headers?: MsgHdrs): boolean {
    try {
      this.nats.connection.publish(subject, bytes, { reply: this.inboxPrefix + id, headers });
      return true;
    } catch {
      return false;
    }
  }

  /** A request over max_payload: its body into RPC_BODIES, then the message that refers to it. */
  private async publishLarge(subject: string, bytes: Uint8Array, id: string, state: Liveness): Promise<boolean> {
    try {
      const { name, headers } = await this.bodies.put(bytes);
      state.bodyRef = name;
      state.bytes = undefined; // a resend refers to the stored body
      state.lastHeard = Date.now();
      state.headers = withHeaders(headers, state.headers);
      return this.publish(subject, EMPTY, id, state.headers);
    } catch {
      return false;
    }
  }

  private onReply(message: Msg): void {
    const id = message.subject.slice(this.inboxPrefix.length);
    const progress = message.headers?.get(RPC_PROGRESS_HEADER);
    if (progress) {
      this.onProgress(id, progress);
      return;
    }
    const ref = message.headers?.get(RPC_BODY_HEADER);
    const chain = this.replyChains.get(id);
    if (!ref && !chain) {
      this.onReplyBody(id, message, message.data);
      return;
    }
    // A reply over max_payload: read it from the object store; later packets of the call wait for it.
    const state: Liveness | undefined = this.pending.get(id) ?? this.streams.get(id);
    if (state) state.lastHeard = Date.now();
    const next = (chain ?? Promise.resolve())
      .then(async () => {
        let data = message.data;
        if (ref) {
          data = await this.bodies.get(ref);
          this.bodies.delete(ref);
        }
        this.onReplyBody(id, message, data);
      })
      .catch(() => {
        const error = new GatewayError(502, 'The reply of an internal request could not be read', {
          errorType: 'server',
          metadata: { reason: 'reply_lost', retryable: true },
        });
        this.settle(id)?.reject(error);
        this.streams.get(id)?.stream.fail(error);
      })
      .finally(() => {
        if (this.replyChains.get(id) === next) this.replyChains.delete(id);
      });
    this.replyChains.set(id, next);
  }

  private onReplyBody(id: string, message: Msg, data: Uint8Array): void {
    const call = this.settle(id);
    if (!call) {
      const open = this.streams.get(id);
      // Otherwise: a late reply after a timeout, or a packet of a stream nobody reads any more.
      if (open) {
        open.lastHeard = Date.now();
        onStreamPacket(open, message, data, this.nats);
      }
      return;
    }
    if (message.headers?.hasError && message.headers.code === 503) {
      call.reject(serviceUnavailable(`No service is answering ${call.subject.split('.')[0]} requests`));
      return;
    }
    let reply: NestReplyPacket;
    try {
      const text = decoder.decode(data);
      // The answer's own JSON: only a call that asked for it gets one.
      if (message.headers?.get(REPLY_HEADER) === 'json') {
        call.onReplyHeaders?.(message.headers);
        call.resolve(call.json ? text : JSON.parse(text));
        return;
      }
      reply = JSON.parse(text) as NestReplyPacket;
    } catch {
      call.reject(new GatewayError(500, 'Internal server error'));
      return;
    }
    if (reply.err !== undefined && reply.err !== null) {
      call.reject(isRpcErrorPayload(reply.err) ? fromRpcError(reply.err) : new GatewayError(500, 'Internal server error'));
    } else {
      call.resolve(call.json ? JSON.stringify(reply.response) : reply.response);
    }
  }

  /** A heartbeat of the replica working on a call. */
  private onProgress(id: string, progress: string): void {
    const state: Liveness | undefined = this.pending.get(id) ?? this.streams.get(id);
    if (!state) return;
    state.lastHeard = Date.now();
    if (progress === 'committed') {
      state.committed = true;
      state.bytes = undefined;
    }
  }

  /**
   * Calls whose replica went silent: sent again elsewhere when allowed, failed otherwise. And
   * streams whose last grant of credit may have been lost get it again.
   */
  private sweep(): void {
    const now = Date.now();
    const silentSince = now - this.livenessTimeoutMs;
    for (const [id, call] of this.pending) {
      if (call.lastHeard > silentSince) continue;
      if (this.resend(call, call.subject, (newId) => this.pending.set(newId, call))) this.pending.delete(id);
      else this.settle(id)?.reject(replicaLost(call.subject, this.livenessTimeoutMs));
    }
    for (const [id, open] of this.streams) {
      open.stream.resendCreditIfSilent(now);
      if (open.lastHeard > silentSince) continue;
      if (
        !open.stream.started &&
        this.resend(open, open.stream.subject, (newId) => {
          open.id = newId;
          this.streams.set(newId, open);
        })
      ) {
        this.streams.delete(id);
      } else {
        open.stream.fail(replicaLost(open.stream.subject, this.livenessTimeoutMs));
      }
    }
  }

  /** Sends an uncommitted call again under a new id (NATS picks a live replica of the group). */
  private resend(state: Liveness, subject: string, register: (id: string) => void): boolean {
    if (state.committed || state.resendsLeft <= 0 || !(state.bytes || state.bodyRef) || !this.nats.isConnected()) return false;
    const id = this.nextId();
    // A stored body is read again by the next replica; the packet's own id is not used for routing replies (the reply subject is).
    const sent = state.bodyRef
      ? this.publish(subject, EMPTY, id, state.headers ?? refHeaders(state.bodyRef))
      : this.publish(subject, withId(state.bytes!, id), id, state.headers);
    if (!sent) return false;
    requestResends.inc({ subject });
    state.resendsLeft -= 1;
    state.lastHeard = Date.now();
    register(id);
    return true;
  }

  private settle(id: string): PendingCall | undefined {
    const call = this.pending.get(id);
    if (!call) return undefined;
    this.pending.delete(id);
    clearTimeout(call.timer);
    if (call.bodyRef) this.bodies.delete(call.bodyRef);
    return call;
  }
}

function onStreamPacket(open: OpenStream, message: Msg, data: Uint8Array, nats: ResilientNatsConnection): void {
  const { stream } = open;
  const headers = message.headers;
  const marker = headers?.get(STREAM_HEADER);
  if (marker === 'frames' || marker === 'end') {
    if (!open.frames && marker === 'frames') {
      // The service takes credit on the subject it names, for the bytes read from now on.
      const creditSubject = headers!.get(STREAM_CREDIT_HEADER);
      if (creditSubject) stream.grantCredit((consumed) => publishCredit(nats, creditSubject, consumed));
    }
    open.frames = true;
    if (data.length > 0) stream.push(data);
    if (marker === 'end') stream.end();
    return;
  }
  // After the first message of frames the next ones carry no Gw-Stream (an object-store
  // reference only its own header): the body is bytes for the client.
  if (!marker && open.frames) {
    if (data.length > 0) stream.push(data);
    return;
  }
  if (marker !== 'error' && headers?.hasError && headers.code === 503) {
    stream.fail(serviceUnavailable(`No service is answering ${stream.subject.split('.')[0]} requests`));
    return;
  }
  // The error packet (`{err}`, marked `error` once frames went out).
  let packet: NestReplyPacket;
  try {
    packet = JSON.parse(decoder.decode(data)) as NestReplyPacket;
  } catch {
    packet = {};
  }
  stream.fail(isRpcErrorPayload(packet.err) ? fromRpcError(packet.err) : new GatewayError(500, 'Internal server error'));
}

/** A grant of credit: the bytes of the stream consumed so far, as decimal text. */
function publishCredit(nats: ResilientNatsConnection, subject: string, consumed: number): void {
  try {
    nats.connection.publish(subject, String(consumed));
  } catch {
    // The bus is gone: the stream fails on its own (liveness, idle timeout).
  }
}

/**
 * Nest's request packet `{pattern, data, id}`. A call that may be resent keeps its body encoded
 * without the id (`kept`), and each send appends the id of that attempt (the reply subject's
 * last token), so a resend does not serialise the request again.
 */
function packet(subject: string, data: unknown, kept: Uint8Array | undefined, id: string): Uint8Array {
  return kept ? withId(kept, id) : encoder.encode(JSON.stringify({ pattern: subject, data, id }));
}

/** `{"pattern":...,"data":...}` + id -> `{"pattern":...,"data":...,"id":"<id>"}`. */
function withId(bytes: Uint8Array, id: string): Uint8Array {
  const suffix = encoder.encode(`,"id":"${id}"}`);
  const out = new Uint8Array(bytes.length - 1 + suffix.length);
  out.set(bytes.subarray(0, bytes.length - 1));
  out.set(suffix, bytes.length - 1);
  return out;
}

/** The replica working on the call went silent: it died, or hangs. */
function replicaLost(subject: string, silenceMs: number): GatewayError {
  return new GatewayError(
    503,
    `The ${subject.split('.')[0]} replica handling this request stopped responding (silent for ${silenceMs} ms)`,
    {
      errorType: 'server',
      metadata: { reason: 'replica_lost', retryable: true },
    },
  );
}

function serviceUnavailable(message: string): GatewayError {
  return new GatewayError(503, message, { errorType: 'server', metadata: { reason: 'service_unavailable', retryable: true } });
}

/** Random bytes per reply id: 72 bits, as unguessable as before. */
const TOKEN_BYTES = 9;
const tokenPool = Buffer.alloc(TOKEN_BYTES * 512);
let tokenOffset = tokenPool.length;

/**
 * 12 base64url characters of fresh randomness, drawn from a pool refilled every 512 ids: one
 * `randomBytes` call per request was a getrandom syscall each, visible in the gateway's profile
 * of the sign path (issue 14).
 */
export function randomToken(): string {
  if (tokenOffset === tokenPool.length) {
    randomFillSync(tokenPool);
    tokenOffset = 0;
  }
  const token = tokenPool.toString('base64url', tokenOffset, tokenOffset + TOKEN_BYTES);
  tokenOffset += TOKEN_BYTES;
  return token;
}
