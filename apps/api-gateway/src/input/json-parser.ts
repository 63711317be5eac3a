import type { FastifyInstance } from 'fastify';
import { GatewayError } from '@gw/errors';
import { checkJsonBody, nulAllowedUnder } from './json-body.js';

/**
 * The gateway's one JSON body parser, in place of Fastify's default: `JSON.parse`
 * (V8's parser is iterative, a deep text cannot overflow it), then one iterative walk that
 * refuses what the rest of the pipeline cannot take: nesting deeper than 64 levels (class-
 * transformer recurses and overflowed the stack: 500), NUL in strings that may be stored
 * (PostgreSQL refuses it: 500 or a poisoned event), and the prototype-poisoning keys Fastify's
 * secure-json-parse refused, named like any unknown field. Every refusal is a GatewayError,
 * so the exception filter renders the envelope. An empty body is no body (a DELETE with
 * `content-type: application/json` and nothing else is accepted); endpoints that need one say so.
 */
export function registerJsonBodyParser(fastify: FastifyInstance): void {
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, (request, text, done) => {
    const body = text as string;
    if (body.length === 0) return done(null, undefined);
    let value: unknown;
    try {
      value = JSON.parse(body);
    } catch {
      return done(GatewayError.badRequest('Request body is not valid JSON'), undefined);
    }
    const refusal = checkJsonBody(value, nulAllowedUnder(request.url));
    if (refusal) return done(refusal, undefined);
    done(null, value);
  });
}

/**
 * The same NUL rule for query strings: a parameter name or value holding NUL is a
 * 400 naming the parameter, before any route reads it (values may reach a database query).
 */
export function registerQueryCheck(fastify: FastifyInstance): void {
  fastify.addHook('preValidation', (request, _reply, done) => {
    const query = request.query;
    if (typeof query !== 'object' || query === null) return done();
    for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
      const values = Array.isArray(value) ? value : [value];
      if (name.includes('\u0000') || values.some((item) => typeof item === 'string' && item.includes('\u0000'))) {
        const param = name.replaceAll('\u0000', '\\u0000');
        return done(GatewayError.badRequest(`${param}: query parameters must not contain the NUL character (\\u0000)`, { param }));
      }
    }
    done();
  });
}
