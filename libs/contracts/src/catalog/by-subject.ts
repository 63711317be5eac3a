import * as catalog from './messages.js';
import type { BusEvent, RpcMessage, RpcStreamMessage } from './message-descriptor.js';

type AnyMessage = RpcMessage<unknown, unknown> | RpcStreamMessage<unknown, unknown> | BusEvent<unknown>;

let bySubject: Map<string, AnyMessage> | undefined;

/** The catalog's declaration of the message on `subject`, if it has one. */
function messageFor(subject: string): AnyMessage | undefined {
  bySubject ??= new Map(
    Object.values(catalog)
      .flatMap((value): unknown[] => (isMessage(value) ? [value] : typeof value === 'object' && value !== null ? Object.values(value) : []))
      .filter(isMessage)
      .map((message) => [message.subject, message]),
  );
  return bySubject.get(subject);
}

function isMessage(value: unknown): value is AnyMessage {
  const kind = (value as { kind?: unknown } | null)?.kind;
  return kind === 'rpc' || kind === 'stream' || kind === 'event';
}

/** The catalog declares the message on `subject` trusted: its receiver does not validate it again. */
export function isTrustedSubject(subject: string): boolean {
  const message = messageFor(subject);
  return message !== undefined && message.kind !== 'event' && message.trusted === true;
}
