import { describe, expect, it } from 'vitest';
import * as catalog from './messages.js';
import type { RpcMessage, RpcStreamMessage } from './message-descriptor.js';
import { isTrustedSubject, REQUEST_DECLARATIONS } from './message-routes.js';

const declared = Object.values(REQUEST_DECLARATIONS).flatMap((group) => Object.values(group).map((declaration) => declaration.subject));
const requestMessages = Object.values(catalog)
  .flatMap((value): unknown[] => (typeof value === 'object' && value !== null && !('kind' in value) ? Object.values(value) : [value]))
  .filter((value): value is RpcMessage<unknown, unknown> | RpcStreamMessage<unknown, unknown> =>
    ['rpc', 'stream'].includes((value as { kind?: string } | null)?.kind ?? ''),
  );

describe('the declaration of every message on the bus', () => {
  it('gives each declared request exactly one message of the catalog, with its payload class', () => {
    expect(requestMessages.map((message) => message.subject).sort()).toEqual([...declared].sort());
    for (const message of requestMessages) expect(typeof message.payload, message.subject).toBe('function');
  });

  it('declares a subject once', () => {
    expect(new Set(declared).size).toBe(declared.length);
  });

  it('trusts only the front doors the gateway validated and the daemon signature', () => {
    expect(isTrustedSubject('inference.chat.create')).toBe(true);
    expect(isTrustedSubject('interns.daemon.sign')).toBe(true);
    expect(isTrustedSubject('inference.embeddings.create')).toBe(false);
    expect(isTrustedSubject('spec.echo')).toBe(false);
  });
});
