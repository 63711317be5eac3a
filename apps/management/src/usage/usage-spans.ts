import { SpanKind, SpanStatusCode, type Span } from '@opentelemetry/api';
import type { UsageRecordedEvent } from '@gw/contracts';
import { ATTR, contextOfTraceparent, tracer } from '@gw/telemetry';

/**
 * The counting of a batch of usage events as one consumer span per event, each continuing the
 * trace of the generation it counts (the event's `traceparent`), so a trace runs from
 * the gateway to the management counter. Tracing on only; events without a trace context get none.
 */
export class UsageCountSpans {
  private readonly spans = new Map<string, Span>();

  constructor(events: UsageRecordedEvent[]) {
    for (const event of events) {
      if (!event.traceparent || this.spans.has(event.generationId)) continue;
      const span = tracer().startSpan(
        'events.usage.recorded process',
        {
          kind: SpanKind.CONSUMER,
          attributes: {
            [ATTR.messagingSystem]: 'nats',
            [ATTR.messagingDestination]: 'events.usage.recorded',
            [ATTR.messagingOperation]: 'process',
            [ATTR.generationId]: event.generationId,
            [ATTR.model]: event.model,
            [ATTR.providerName]: event.provider,
            [ATTR.inputTokens]: event.promptTokens,
            [ATTR.outputTokens]: event.completionTokens,
            [ATTR.cost]: event.cost,
            'messaging.batch.message_count': events.length,
            ...(event.requestId ? { [ATTR.requestId]: event.requestId } : {}),
          },
        },
        contextOfTraceparent(event.traceparent),
      );
      this.spans.set(event.generationId, span);
    }
  }

  /** The span counting this generation, if it has one. */
  of(generationId: string): Span | undefined {
    return this.spans.get(generationId);
  }

  /** The batch committed: `counted` were new, the others duplicates (counted before). */
  end(counted: readonly string[]): void {
    const fresh = new Set(counted);
    for (const [id, span] of this.spans) {
      span.setAttribute('gw.usage.counted', fresh.has(id));
      span.end();
    }
  }

  /** The batch failed (it will be retried or split). */
  fail(error: unknown): void {
    for (const span of this.spans.values()) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message.split('\n').at(-1) : String(error) });
      span.end();
    }
  }
}
