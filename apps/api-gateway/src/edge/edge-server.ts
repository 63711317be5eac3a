import { GatewayError, toEnvelope } from '@gw/errors';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage, Server, ServerOptions } from 'node:http';
import type { Duplex } from 'node:stream';
import type { GatewayEnv } from '../env.js';
import { rawEnvelope } from '../errors/raw-errors.js';
import { ClientConnections } from './client-connections.js';

/** How often Node checks every connection against the header and request deadlines. */
const DEADLINE_CHECK_INTERVAL_MS = 1_000;

/**
 * The HTTP server's own deadlines (issue 35), as Fastify and Node offer them: headers
 * within HEADERS_TIMEOUT_MS, the whole request (headers and body) within REQUEST_TIMEOUT_MS, else
 * 408 (the envelope, `clientErrorHandler`) and the socket closed; idle keep-alive sockets closed
 * after KEEP_ALIVE_TIMEOUT_MS. No socket idle timeout: a stream may be silent for minutes.
 */
export function edgeServerOptions(env: GatewayEnv): {
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionTimeout: number;
  http: ServerOptions;
} {
  return {
    requestTimeout: env.REQUEST_TIMEOUT_MS,
    keepAliveTimeout: env.KEEP_ALIVE_TIMEOUT_MS,
    connectionTimeout: 0,
    http: {
      headersTimeout: Math.min(env.HEADERS_TIMEOUT_MS, env.REQUEST_TIMEOUT_MS),
      connectionsCheckingInterval: DEADLINE_CHECK_INTERVAL_MS,
      // Node answers a missing Host with an empty 400; the hook below answers the envelope.
      requireHostHeader: false,
    },
  };
}

/**
 * What Node answers alone otherwise, with empty bodies or none, and the connection caps: every
 * refusal at the edge is the envelope (issue 35). Called before the server listens.
 */
export function registerEdgeGuards(server: Server, fastify: FastifyInstance, env: GatewayEnv): ClientConnections {
  const connections = new ClientConnections({
    total: env.MAX_CONNECTIONS,
    perClient: env.MAX_CONNECTIONS_PER_CLIENT,
    unauthenticatedPerClient: env.MAX_UNAUTHENTICATED_CONNECTIONS_PER_CLIENT,
  });
  connections.guard(server);
  // An `Expect` other than 100-continue (Node's default would be an empty 417).
  server.on('checkExpectation', (request: IncomingMessage, response) => {
    const failure = new GatewayError(417, `Expect: ${String(request.headers.expect).slice(0, 64)} is not supported (only 100-continue)`, {
      errorType: 'invalid_request',
    });
    const body = JSON.stringify(toEnvelope(failure));
    response
      .writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' })
      .end(body);
  });
  // CONNECT asks for a tunnel; this is no proxy (Node would close the socket without a word).
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    const failure = new GatewayError(405, 'CONNECT is not supported: this is an API, not a proxy', { errorType: 'invalid_request' });
    socket.on('error', () => undefined);
    socket.end(rawEnvelope(failure, { allow: 'GET, POST, PATCH, DELETE' }));
  });
  // RFC 9112 §3.2: an HTTP/1.1 request without Host is a 400.
  fastify.addHook('onRequest', (request, _reply, done) => {
    if (request.headers.host !== undefined || request.raw.httpVersion !== '1.1') return done();
    done(GatewayError.badRequest('The Host header is required (HTTP/1.1)', { param: 'host' }));
  });
  return connections;
}
