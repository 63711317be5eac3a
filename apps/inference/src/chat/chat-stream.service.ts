import { Injectable } from '@nestjs/common';
import type { ChatStreamRequest } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { Observable } from 'rxjs';
import { assertMaySpend } from '../billing/spend-guard.js';
import { CatalogService, type RoutableEndpoint } from '../catalog/catalog.service.js';
import { computeCost } from '../pricing/cost.js';
import { AdapterRegistry } from '../providers/adapter-registry.js';
import type { ChatCallContext, StreamEvent } from '../providers/provider-adapter.js';
import { beforeFirstByte, UpstreamFailure } from '../upstream/upstream-failure.js';
import { toChunkView, usageChunkView, type ChunkHead, type ChunkProvenance } from './chat-chunk.mapper.js';
import { hashEndUser, newGenerationId } from './chat.service.js';
import { StreamCancellations } from './stream-cancellations.js';
import { StreamTally } from './stream-tally.js';
import { buildUsageView } from './usage-view.js';

/** A provider stream that has produced its first event (or ended without any). */
export interface OpenedStream {
  endpoint: RoutableEndpoint;
  first: IteratorResult<StreamEvent>;
  events: AsyncIterator<StreamEvent>;
}

/**
 * The attempt loop of a streamed completion: endpoints in order, moving on after a retryable
 * failure, which for a stream can only happen before its first event (nothing has reached
 * the client yet). Once `open` resolves the stream is committed to that endpoint. The routing
 * planner replaces the catalog order with its own plan here.
 */
export async function openFirstAvailableStream(
  endpoints: readonly RoutableEndpoint[],
  open: (endpoint: RoutableEndpoint) => Promise<OpenedStream>,
): Promise<OpenedStream> {
  let lastFailure: UpstreamFailure | undefined;
  for (const endpoint of endpoints) {
    try {
      return await open(endpoint);
    } catch (error) {
      if (!(error instanceof UpstreamFailure)) throw error;
      lastFailure = error;
      if (!error.retryable) break;
    }
  }
  if (!lastFailure) throw new GatewayError(502, 'No endpoint is available for this model', { errorType: 'provider_unavailable' });
  throw lastFailure.gatewayError;
}

/**
 * Streamed chat completions (`stream: true`). Emits each `chat.completion.chunk` already
 * serialised, so the gateway relays the text as the SSE `data:` line without a JSON round trip
 * (ADR 0016). The Observable fails with a GatewayError: before the first chunk
 * the gateway still answers with the error envelope; after it, with an SSE error event.
 */
@Injectable()
export class ChatStreamService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly adapters: AdapterRegistry,
    private readonly cancellations: StreamCancellations,
  ) {}

  stream(request: ChatStreamRequest): Observable<string> {
    return new Observable<string>((subscriber) => {
      const controller = this.cancellations.register(request.streamId);
      this.run(request, controller.signal, (chunk) => subscriber.next(chunk))
        .then(
          () => subscriber.complete(),
          (error: unknown) => subscriber.error(error instanceof UpstreamFailure ? error.gatewayError : error),
        )
        .finally(() => this.cancellations.release(request.streamId, controller));
      // Unsubscribing (service shutdown) must not leave the provider call running.
      return () => controller.abort();
    });
  }

  private async run(request: ChatStreamRequest, signal: AbortSignal, emit: (chunk: string) => void): Promise<void> {
    const { principal, body } = request;
    assertMaySpend(principal);
    const modelId = String(body.model);
    const model = this.catalog.resolve(modelId);
    const context: ChatCallContext = { endUserHash: hashEndUser(principal.workspaceId, body.user), signal };
    const opened = await openFirstAvailableStream(model.endpoints, (endpoint) => this.open(endpoint, body, context));

    const head: ChunkHead = { id: newGenerationId(), created: Math.floor(Date.now() / 1000), model: modelId, provider: opened.endpoint.provider.name };
    const provenance: ChunkProvenance = { systemFingerprint: null, serviceTier: null };
    const tally = new StreamTally();
    // A failure from here on is mid-stream: the adapter throws it non-retryable and it ends the stream.
    for (let next = opened.first; !next.done; next = await opened.events.next()) {
      const event = next.value;
      tally.add(event);
      if (event.type !== 'chunk') continue;
      if (event.systemFingerprint) provenance.systemFingerprint = event.systemFingerprint;
      if (event.serviceTier) provenance.serviceTier = event.serviceTier;
      emit(JSON.stringify(toChunkView(head, provenance, event)));
    }
    const usage = tally.usage(body.messages);
    const cost = computeCost(opened.endpoint.pricing, usage);
    if (wantsUsageChunk(body)) emit(JSON.stringify(usageChunkView(head, provenance, buildUsageView(usage, cost, false))));
  }

  /** Starts one endpoint's stream and waits for its first event, so a failure before it can fall back. */
  private async open(endpoint: RoutableEndpoint, body: Record<string, unknown>, context: ChatCallContext): Promise<OpenedStream> {
    try {
      const events = (await this.adapters.for(endpoint.provider.format).stream(endpoint, body, context))[Symbol.asyncIterator]();
      return { endpoint, first: await events.next(), events };
    } catch (error) {
      throw error instanceof UpstreamFailure ? beforeFirstByte(error) : error;
    }
  }
}

function wantsUsageChunk(body: Record<string, unknown>): boolean {
  const options = body.stream_options as { include_usage?: unknown } | null | undefined;
  return options?.include_usage === true;
}
