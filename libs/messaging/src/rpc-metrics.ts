import { GatewayError } from '@gw/errors';
import { counter, histogram } from '@gw/metrics';
import type { Span } from '@opentelemetry/api';
import { endCallSpan } from './trace-headers.js';

/** Caller-side latency of NATS request-reply, per subject (the subject table bounds the labels). */
const requestSeconds = histogram('nats_request_duration_seconds', 'NATS request-reply latency seen by the caller', ['subject', 'outcome']);

/**
 * Calls sent again to another replica after their replica went silent. A replica that
 * had in fact answered (its reply lost with a NATS node) has then worked twice: worth watching.
 */
export const requestResends = counter('nats_request_resends_total', 'Calls sent again after their replica went silent', ['subject']);

/** Times one request: `ok`, or the error's status class (`4xx`, `503`, `504`, `5xx`); ends its client span, if traced. */
export function timedRequest<T>(subject: string, span: Span | undefined, reply: Promise<T>): Promise<T> {
  const started = performance.now();
  reply.then(
    () => {
      requestSeconds.observe({ subject, outcome: 'ok' }, (performance.now() - started) / 1000);
      if (span) endCallSpan(span);
    },
    (error: unknown) => {
      requestSeconds.observe({ subject, outcome: outcomeOf(error) }, (performance.now() - started) / 1000);
      if (span) endCallSpan(span, error);
    },
  );
  return reply;
}

function outcomeOf(error: unknown): string {
  if (!(error instanceof GatewayError)) return 'error';
  if (error.status === 503 || error.status === 504) return String(error.status);
  return error.status >= 500 ? '5xx' : '4xx';
}
