import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { ATTR, tracer } from '@gw/telemetry';
import { UpstreamFailure } from '../upstream/upstream-failure.js';
import type { RouteAttempt } from './route-types.js';

/**
 * One provider call as a span (tracing on only): `chat {upstream model}`, a client
 * span with the GenAI attributes, parent of the undici span of the HTTP call. It ends when the
 * provider answered (for a stream: at its response head, when routing knows the attempt won).
 */
export async function tracedAttempt<T>(attempt: RouteAttempt, number: number, call: (attempt: RouteAttempt) => Promise<T>): Promise<T> {
  const provider = attempt.endpoint.provider.id;
  const span = tracer().startSpan(`chat ${attempt.endpoint.upstreamModel}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      [ATTR.operationName]: 'chat',
      [ATTR.providerName]: provider,
      [ATTR.system]: provider,
      [ATTR.requestModel]: attempt.endpoint.upstreamModel,
      [ATTR.model]: attempt.modelId,
      [ATTR.attempt]: number,
      [ATTR.byok]: attempt.credential.kind === 'byok',
    },
  });
  try {
    return await context.with(trace.setSpan(context.active(), span), () => call(attempt));
  } catch (error) {
    if (error instanceof UpstreamFailure) {
      span.setAttribute(ATTR.errorType, error.gatewayError.errorType);
      if (error.upstreamStatus !== undefined) span.setAttribute('http.response.status_code', error.upstreamStatus);
      span.setStatus({ code: SpanStatusCode.ERROR, message: `${error.kind}: ${error.message}` });
    } else {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    }
    throw error;
  } finally {
    span.end();
  }
}
