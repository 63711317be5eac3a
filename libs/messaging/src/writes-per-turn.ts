import type { NatsConnection } from '@nats-io/transport-node';

/** The parts of nats.js's protocol handler (`@nats-io/nats-core` 3.x `ProtocolHandler`) this patches. */
interface ProtocolInternals {
  flushPending(): void;
  close(err?: Error): Promise<void>;
  outbound: { size(): number };
  pendingLimit: number;
}

const PATCHED = Symbol('writesPerTurn');

/**
 * Makes `connection` write what it has to send once per turn of the event loop.
 *
 * nats.js writes its outbound buffer to the socket in a microtask queued by the first command
 * into an empty buffer. So every request, reply, JetStream ack or publish made in a different
 * I/O callback is its own socket write: a system call, and a wake-up and read in nats-server.
 * Under load that was a measurable share of inference's and the gateway's CPU (`writeBuffer` under
 * `flushPending`). Here the flush waits for `setImmediate`, the check phase after the I/O
 * callbacks of the turn, so the commands of one turn leave in one write. Unchanged:
 * - the order of commands (one buffer, written in order);
 * - nats.js's bound on the buffer: past `pendingLimit` (32 KiB) it is written at once;
 * - `close()` writes what is pending before it closes the socket (nats.js's own `close()`
 *   does not: a publish made right before it was lost; `drain()` always flushed);
 * - while disconnected nothing is written; nats.js flushes the buffer on reconnect.
 * Latency: a command waits for the rest of the turn's I/O callbacks, the cost of the batching;
 * with one request in flight the turn has nothing else and the write leaves as before.
 */
export function writeOncePerTurn(connection: NatsConnection): NatsConnection {
  const protocol = (connection as unknown as { protocol?: Partial<ProtocolInternals> & { [PATCHED]?: true } }).protocol;
  if (!isProtocol(protocol)) {
    // A nats.js upgrade renamed what this relies on: fail at start, not silently slower.
    throw new Error('writeOncePerTurn: this nats.js version has no ProtocolHandler.flushPending / outbound / pendingLimit');
  }
  if (protocol[PATCHED]) return connection;
  protocol[PATCHED] = true;

  const flushNow = protocol.flushPending.bind(protocol);
  const close = protocol.close.bind(protocol);
  let scheduled: NodeJS.Immediate | undefined;
  const writePending = (): void => {
    if (scheduled) clearImmediate(scheduled);
    scheduled = undefined;
    flushNow();
  };
  protocol.flushPending = () => {
    if (protocol.outbound.size() >= protocol.pendingLimit) writePending();
    else scheduled ??= setImmediate(writePending);
  };
  protocol.close = (err?: Error) => {
    writePending();
    return close(err);
  };
  return connection;
}

function isProtocol(value: unknown): value is ProtocolInternals & { [PATCHED]?: true } {
  const candidate = value as Partial<ProtocolInternals> | undefined;
  return (
    typeof candidate?.flushPending === 'function' &&
    typeof candidate.close === 'function' &&
    typeof candidate.outbound?.size === 'function' &&
    typeof candidate.pendingLimit === 'number'
  );
}
