import { headers as natsHeaders, type MsgHdrs } from '@nats-io/transport-node';

/*
 * Raw JSON replies. A caller that only forwards a service's answer (the gateway's
 * non-streamed front doors) asks for it as the answer's own JSON text, `Gw-Reply: json` on the
 * request; a served subject then replies with `JSON.stringify(answer)` as the message
 * body, marked `Gw-Reply: json`, instead of Nest's `{"response":…,"isDisposed":true,"id":…}`
 * packet. The caller sends those bytes to its client as they are: one stringify in the service,
 * no parse and no second stringify in the caller. Errors keep Nest's `{err}` packet, unmarked.
 * A service that does not know the header answers a packet, which the caller still reads.
 */

/** Request: "I accept the answer as raw JSON"; reply: "this body is the answer's JSON". */
export const REPLY_HEADER = 'Gw-Reply';

/** The answer's JSON text exactly as the service serialised it; `T` is what it holds. */
export type JsonText<T> = string & { readonly __jsonOf?: T };

/** The call's headers with `Gw-Reply: json` added (a new set when it had none). */
export function acceptingJson(headers: MsgHdrs | undefined): MsgHdrs {
  const hdrs = headers ?? natsHeaders();
  hdrs.set(REPLY_HEADER, 'json');
  return hdrs;
}

/** The headers of a raw JSON reply (shared: never modified). */
export const JSON_REPLY_HEADERS: MsgHdrs = acceptingJson(undefined);

/**
 * An answer its handler serialised already (an answer kept as JSON text, a cached one), with
 * headers for the reply: a served subject sends `text` as it is, with `Gw-Reply: json` and these
 * headers, to a caller that accepts JSON (it reads them with `onReplyHeaders`); to another it is
 * parsed into Nest's packet.
 */
export class JsonAnswer {
  readonly headers: MsgHdrs;

  constructor(
    readonly text: string,
    annotations: Readonly<Record<string, string>>,
  ) {
    this.headers = acceptingJson(undefined);
    for (const [name, value] of Object.entries(annotations)) this.headers.set(name, value);
  }
}
