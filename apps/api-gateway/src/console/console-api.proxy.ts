import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendError, type ConsoleAuth } from './console-auth.routes.js';
import { OPERATOR_API_PREFIX, operatorPathRefused } from './operator-sign-in.js';

const API_PREFIX = '/console/api/';
/** Answer headers worth passing back; hop-by-hop and framing headers are the outer reply's own. */
const PASSED_HEADERS = ['content-type', 'content-disposition', 'retry-after', 'x-request-id', 'x-generation-id'];

/**
 * `/console/api/v1/...` is the public API, called in-process (Fastify's inject) with the
 * session's key: the console can do exactly what a script with that key can, through the same
 * guards, limits and validation, and the key never reaches the browser.
 */
export function registerConsoleApiProxy(fastify: FastifyInstance, auth: ConsoleAuth): void {
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    const caller = await auth.authorize(request, reply);
    if (!caller) return reply;
    const url = '/' + request.url.slice(API_PREFIX.length);
    if (caller.session.op !== undefined && !url.startsWith(OPERATOR_API_PREFIX)) return sendError(reply, operatorPathRefused());
    const ifMatch = request.headers['if-match'];
    const hasBody = request.body !== undefined && request.body !== null;
    const answer = await fastify.inject({
      method: request.method as 'GET',
      url,
      headers: {
        authorization: `Bearer ${caller.key}`,
        accept: request.headers.accept ?? 'application/json',
        ...(hasBody ? { 'content-type': 'application/json' } : {}),
        // The catalog's optimistic lock: a change made on a version the operator did not read is refused.
        ...(ifMatch !== undefined ? { 'if-match': ifMatch } : {}),
      },
      ...(hasBody ? { payload: JSON.stringify(request.body) } : {}),
    });
    // The API refused the session's key: it was deleted (a logout elsewhere) or expired. A role's
    // refusal (a member's key on an owner's route, also a 401) leaves the session standing.
    if (answer.statusCode === 401 && !refusedForRole(answer.payload)) auth.ended(reply);
    for (const name of PASSED_HEADERS) {
      const value = answer.headers[name];
      if (value !== undefined) void reply.header(name, value);
    }
    return reply.status(answer.statusCode).header('cache-control', 'no-store').send(answer.rawPayload);
  };
  fastify.route({ method: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'], url: `${API_PREFIX}*`, handler: forward });
}

function refusedForRole(payload: string): boolean {
  try {
    return (JSON.parse(payload) as { error?: { metadata?: { reason?: string } } }).error?.metadata?.reason === 'management_key_required';
  } catch {
    return false;
  }
}
