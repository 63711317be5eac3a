import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import { toEnvelope } from '@gw/errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { googleErrorBody, isGoogleRoute } from '../gemini/google-error.js';
import { isMessagesRoute, messagesErrorBody } from '../messages/anthropic-error.js';
import { internErrorShape } from '../interns/intern-errors.js';
import { isInternRoute } from '../interns/intern-routes.js';
import type { AuthenticatedRequest } from '../auth/api-key.guard.js';
import { RequestFailures } from '../request-failures/request-failures.service.js';
import { toGatewayError } from './http-error.mapper.js';

/**
 * The one place HTTP errors are rendered: every failure leaves as the spec's envelope
 * `{"error":{"code","message","metadata"}}` with the matching status. Server errors get an
 * error id that appears in the response and in the log line, never the internals. A failed
 * request of an authenticated key is recorded (per error type) before its answer leaves.
 */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('HttpExceptions');

  constructor(private readonly failures: RequestFailures) {}

  async catch(exception: unknown, host: ArgumentsHost): Promise<void> {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    // The sign deadline may have answered 408 already while the handler was still waiting.
    if (reply.sent) return;
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const error = isInternRoute(request.url) ? internErrorShape(toGatewayError(exception)) : toGatewayError(exception);
    const envelope = toEnvelope(error);
    // The request id lets a user quote the failure (it is also the x-request-id header).
    envelope.error.metadata = { ...envelope.error.metadata, request_id: request.id };
    // A service's 500 already carries the error id it logged under; only failures of the
    // gateway itself get a new one here.
    if (error.status >= 500 && error.errorType === 'server' && !error.metadata?.reason && !error.metadata?.error_id) {
      const errorId = randomUUID();
      envelope.error.metadata = { ...envelope.error.metadata, error_id: errorId };
      this.logger.error({ errorId, requestId: request.id, err: exception }, 'Request failed');
    }
    const principal = (request as FastifyRequest & AuthenticatedRequest).principal;
    if (principal) {
      await this.failures.record({ method: request.method, url: request.url, id: request.id, principal, body: request.body }, error);
      if (reply.sent) return;
    }
    const retryAfter = error.metadata?.retry_after;
    if (error.status === 429 || error.status === 503)
      reply.header('retry-after', typeof retryAfter === 'number' ? String(retryAfter) : '1');
    const body = isMessagesRoute(request.url)
      ? messagesErrorBody(envelope)
      : isGoogleRoute(request.url)
        ? googleErrorBody(envelope)
        : envelope;
    void reply.status(error.status).header('content-type', 'application/json; charset=utf-8').send(body);
  }
}
