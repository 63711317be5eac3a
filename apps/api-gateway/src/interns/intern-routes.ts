import { GatewayError, toEnvelope } from '@gw/errors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { internErrorShape } from './intern-errors.js';

/** Spec §8: the sign operation's body limit and time-out; also the SDK's body cap for every intern route. */
const INTERN_BODY_LIMIT_BYTES = 1_048_576;
export const SIGN_TIMEOUT_MS = 10_000;

const INTERN_ROUTE = /^\/v1\/interns(\/|\?|$)/;
const SIGN_ROUTE = /^\/v1\/interns\/[^/?]+\/(daemon|daemon-access)\/sign(\?|$)/;

export const isInternRoute = (url: string) => INTERN_ROUTE.test(url);
export const isSignRoute = (url: string) => SIGN_ROUTE.test(url);

/** When the sign operation must have answered by (set for sign routes as the request arrives). */
export interface SignDeadline {
  signDeadline?: number;
}

/**
 * `eu.*`-style host patterns (`*` matches any run of characters), case-insensitive, compared
 * with the Host header without its port.
 */
export function compileHostPatterns(patterns: string): RegExp[] {
  return patterns
    .split(',')
    .map((pattern) => pattern.trim().toLowerCase())
    .filter(Boolean)
    .map((pattern) => new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`));
}

function hostOf(request: FastifyRequest): string {
  const host = request.headers.host ?? '';
  return (host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!).toLowerCase();
}

function send(reply: FastifyReply, error: GatewayError): void {
  void reply
    .status(error.status)
    .header('content-type', 'application/json; charset=utf-8')
    .send(toEnvelope(internErrorShape(error)));
}

/**
 * What the intern routes need before Nest sees a request (Fastify hooks, so they also bound
 * the body read): their own 1 MiB body limit (the gateway's global one is 10 MB), refusal of
 * regional hostnames (421), JSON-only sign bodies (415), and the sign
 * operation's 10 s deadline, which also covers a body trickling in.
 */
export function registerInternRouteHooks(fastify: FastifyInstance, regionalHosts: RegExp[]): void {
  fastify.addHook('onRoute', (route) => {
    if (isInternRoute(route.url)) route.bodyLimit = INTERN_BODY_LIMIT_BYTES;
  });
  fastify.addHook('onRequest', (request, reply, done) => {
    if (!isInternRoute(request.url)) return done();
    const host = hostOf(request);
    if (regionalHosts.some((pattern) => pattern.test(host))) {
      return send(
        reply,
        new GatewayError(421, 'Interns are served on the global hostname only, not on regional ones', {
          metadata: { reason: 'regional_host', retryable: false },
        }),
      );
    }
    if (!isSignRoute(request.url)) return done();
    if (!/^application\/json\s*(;|$)/i.test(request.headers['content-type'] ?? '')) {
      return send(
        reply,
        new GatewayError(415, 'Unsupported Content-Type: send application/json', {
          metadata: { reason: 'unsupported_media_type', retryable: false },
        }),
      );
    }
    const deadline = Date.now() + SIGN_TIMEOUT_MS;
    (request as SignDeadline).signDeadline = deadline;
    const timer = setTimeout(() => {
      if (reply.sent) return;
      send(
        reply,
        new GatewayError(408, `The sign operation did not finish within ${SIGN_TIMEOUT_MS / 1000} s`, {
          errorType: 'timeout',
          metadata: { reason: 'timeout', retryable: true },
        }),
      );
    }, SIGN_TIMEOUT_MS);
    reply.raw.once('close', () => clearTimeout(timer));
    done();
  });
}
