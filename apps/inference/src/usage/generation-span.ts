import { context, trace } from '@opentelemetry/api';
import { ATTR } from '@gw/telemetry';
import type { Charge } from '../pricing/charge.js';
import type { NormalizedUsage } from '../providers/provider-adapter.js';
import type { RouteAttempt } from '../routing/route-types.js';

/**
 * A generation's outcome on the span of the request that produced it (the service's handler
 * span, tracing on only): model, provider, the answering attempt, tokens (GenAI conventions)
 * and what was charged. Amounts as decimal strings, as on the wire.
 */
export function recordGenerationOnSpan(
  generationId: string,
  attempt: RouteAttempt,
  attemptNumber: number,
  usage: NormalizedUsage,
  charge: Charge,
): void {
  const span = trace.getSpan(context.active());
  if (!span) return;
  const provider = attempt.endpoint.provider.id;
  span.setAttributes({
    [ATTR.operationName]: 'chat',
    [ATTR.providerName]: provider,
    [ATTR.system]: provider,
    [ATTR.requestModel]: attempt.endpoint.upstreamModel,
    [ATTR.responseModel]: attempt.endpoint.upstreamModel,
    [ATTR.responseId]: generationId,
    [ATTR.model]: attempt.modelId,
    [ATTR.generationId]: generationId,
    [ATTR.attempt]: attemptNumber,
    [ATTR.byok]: charge.isByok,
    [ATTR.inputTokens]: usage.promptTokens,
    [ATTR.outputTokens]: usage.completionTokens,
    [ATTR.cost]: charge.charged.toFixed(),
    [ATTR.upstreamCost]: charge.upstream.total.toFixed(),
  });
}
