import { GatewayError } from '@gw/errors';
import { counter, gauge } from '@gw/metrics';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { rawEnvelope } from '../errors/raw-errors.js';

/** Caps on open connections; 0 is no cap. */
export interface ConnectionCaps {
  total: number;
  perClient: number;
  /** Connections of one address on which no request has presented a valid key yet. */
  unauthenticatedPerClient: number;
}

interface ClientCount {
  open: number;
  unauthenticated: number;
}

interface SocketState {
  readonly address: string;
  authenticated: boolean;
  readonly owner: ClientConnections;
}

const STATE = Symbol('gw.connection');
type TrackedSocket = Socket & { [STATE]?: SocketState };

const refused = counter('gateway_connections_refused_total', 'Connections refused at accept by a connection cap', ['limit_type']);

/** How long a refused socket may stay open after its answer left (it reads and drops what arrives). */
const REFUSED_LINGER_MS = 200;

/**
 * Counts open connections per client address (the TCP peer) and refuses, at accept and before
 * Node's HTTP parser sees a byte, the connection past a cap: one client with thousands of slow
 * or idle sockets cannot take the file descriptors everyone else needs (issue 35). A connection
 * counts as unauthenticated until a request on it presents a valid key.
 */
export class ClientConnections {
  private total = 0;
  private readonly clients = new Map<string, ClientCount>();

  constructor(private readonly caps: ConnectionCaps) {
    const open = () => this.total;
    gauge('gateway_connections_open', 'Connections this replica holds open', [], function () {
      this.set(open());
    });
  }

  /** Puts the caps in front of the server's own connection listeners (call before listen). */
  guard(server: Server): void {
    const listeners = server.listeners('connection') as Array<(socket: Socket) => void>;
    server.removeAllListeners('connection');
    server.on('connection', (socket: Socket) => {
      const refusal = this.admit(socket as TrackedSocket);
      if (refusal) return refuse(socket, refusal);
      for (const listener of listeners) listener.call(server, socket);
    });
  }

  private admit(socket: TrackedSocket): GatewayError | undefined {
    const address = socket.remoteAddress;
    if (address === undefined) return new GatewayError(400, 'The connection closed before it was accepted');
    const count = this.clients.get(address) ?? { open: 0, unauthenticated: 0 };
    const { total, perClient, unauthenticatedPerClient } = this.caps;
    if (total > 0 && this.total >= total) return tooMany(503, 'connections', total);
    if (perClient > 0 && count.open >= perClient) return tooMany(429, 'connections_per_client', perClient);
    if (unauthenticatedPerClient > 0 && count.unauthenticated >= unauthenticatedPerClient)
      return tooMany(429, 'unauthenticated_connections_per_client', unauthenticatedPerClient);
    count.open++;
    count.unauthenticated++;
    this.total++;
    this.clients.set(address, count);
    const state: SocketState = { address, authenticated: false, owner: this };
    socket[STATE] = state;
    socket.once('close', () => this.closed(state));
    return undefined;
  }

  authenticated(state: SocketState): void {
    if (state.authenticated) return;
    state.authenticated = true;
    const count = this.clients.get(state.address);
    if (count) count.unauthenticated--;
  }

  private closed(state: SocketState): void {
    this.total--;
    const count = this.clients.get(state.address);
    if (!count) return;
    count.open--;
    if (!state.authenticated) count.unauthenticated--;
    if (count.open === 0) this.clients.delete(state.address);
  }
}

/** A request on this socket presented a valid key: it no longer counts as unauthenticated. */
export function markAuthenticated(socket: Socket | undefined): void {
  const state = (socket as TrackedSocket | undefined)?.[STATE];
  if (state && !state.authenticated) state.owner.authenticated(state);
}

function tooMany(status: 429 | 503, limitType: string, limit: number): GatewayError {
  refused.inc({ limit_type: limitType });
  const whose = status === 503 ? 'this gateway replica' : 'your address';
  return new GatewayError(status, `Too many open connections from ${whose} (${limit}); close idle ones or retry later`, {
    errorType: status === 429 ? 'rate_limit_exceeded' : 'server',
    metadata: { reason: 'too_many_connections', limit_type: limitType, limit, retryable: true },
  });
}

/** The envelope, then the socket closed; what the client sent meanwhile is read and dropped, so no reset loses the answer. */
function refuse(socket: Socket, failure: GatewayError): void {
  socket.on('error', () => undefined);
  socket.resume();
  socket.end(rawEnvelope(failure, { 'retry-after': '1' }));
  setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
}
