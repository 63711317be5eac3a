import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { randomUUID } from 'node:crypto';

/** A caller's own id is kept when it is short printable ASCII; anything else gets a new one. */
const CALLER_ID = /^[\x21-\x7e]{1,128}$/;

/**
 * Fastify's request id: the caller's `x-request-id` when it is usable, else a UUID. It is
 * answered on every response (streams too), put in error envelopes' metadata and in the
 * gateway's error log lines, so a user can quote it and an operator can find it (issue 16).
 */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && CALLER_ID.test(given) ? given : randomUUID();
}

/** Sets the header before any handler runs, so a stream's raw head carries it too. */
export function registerRequestIdHeader(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    void reply.header('x-request-id', request.id);
    done();
  });
}
