import type { Msg, MsgHdrs, Payload, PublishOptions, ReviverFn } from '@nats-io/transport-node';

const decoder = new TextDecoder();

/** Sends a reply in place of the message's own `respond`. */
export type Responder = (payload?: Payload, options?: PublishOptions) => boolean;

/**
 * A request message as Nest's dispatch is handed it when the object store is in the way (ADR
 * 0031): the message's own subject, reply and headers, with its body read from the store, or its
 * replies sent through the store. An object of one shape that delegates, rather than
 * `Object.create(message, ...)`: a message made the prototype of another is reshaped by V8 on
 * the spot, several µs on every request, and was the largest share of the served path's
 * regression (ADR 0086).
 */
export class RelayedMsg implements Msg {
  constructor(
    private readonly message: Msg,
    private readonly body: Uint8Array | undefined,
    private readonly responder: Responder | undefined,
  ) {}

  get subject(): string {
    return this.message.subject;
  }

  get sid(): number {
    return this.message.sid;
  }

  get reply(): string | undefined {
    return this.message.reply;
  }

  get headers(): MsgHdrs | undefined {
    return this.message.headers;
  }

  get data(): Uint8Array {
    return this.body ?? this.message.data;
  }

  respond(payload?: Payload, options?: PublishOptions): boolean {
    return this.responder ? this.responder(payload, options) : this.message.respond(payload, options);
  }

  json<T>(reviver?: ReviverFn): T {
    return JSON.parse(this.string(), reviver) as T;
  }

  string(): string {
    return decoder.decode(this.data);
  }
}
