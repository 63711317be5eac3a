import { toEnvelope, GatewayError } from '@gw/errors';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Errors raised before a request reaches a route, which Fastify and Node answer with bodies of
 * their own unless told otherwise (issue 9 item 8). Every one leaves as the spec's
 * envelope (§7.1), and none echoes the URL back.
 */

/**
 * Fastify's router refusing a URL: `%ff`, `%zz`, `%c3%28`, `%` (FST_ERR_BAD_URL), a path parameter
 * over 100 characters (FST_ERR_MAX_PARAM_LENGTH).
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const failure =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? new GatewayError(414, 'A path segment of the URL is too long', { errorType: 'invalid_request' })
      : error.code === 'FST_ERR_BAD_URL'
        ? GatewayError.badRequest('The URL is not valid: a percent-encoded sequence does not decode')
        : new GatewayError(500, 'Internal server error');
  void reply
    .status(failure.status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(JSON.stringify(toEnvelope(failure)));
}

/**
 * Node's `clientError`: what its HTTP parser refuses (raw non-ASCII bytes in the request line,
 * a request line or headers over `maxHeaderSize`, 16 KB: 431), and a request that did not
 * arrive in time (408). The connection has no request object; the envelope is written on the
 * socket, then the socket closed, as Node and Fastify do with their own bodies.
 */
export function clientErrorHandler(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const failure =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? new GatewayError(408, 'The request did not arrive in time')
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? new GatewayError(431, 'The request line and headers are larger than 16 KB', { errorType: 'invalid_request' })
        : GatewayError.badRequest('The HTTP request is malformed');
  if (socket.writable) socket.write(rawEnvelope(failure));
  socket.destroy();
}

/** A whole HTTP/1.1 answer carrying `failure`'s envelope, for a socket no request object owns; it closes the connection. */
export function rawEnvelope(failure: GatewayError, headers: Record<string, string> = {}): string {
  const body = JSON.stringify(toEnvelope(failure));
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return (
    `HTTP/1.1 ${failure.status} ${STATUS_CODES[failure.status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
    `content-length: ${Buffer.byteLength(body)}\r\n${extra}connection: close\r\n\r\n${body}`
  );
}
