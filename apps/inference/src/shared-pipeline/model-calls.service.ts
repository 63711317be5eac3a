import { Injectable } from '@nestjs/common';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';
import { AdapterRegistry, type UpstreamApi } from '../providers/adapter-registry.js';
import type { ChatCallContext, NormalizedCompletion, StreamEvent } from '../providers/provider-adapter.js';
import type { RouteResult } from '../routing/route-executor.js';
import { ProviderRouter } from '../routing/provider-router.service.js';
import type { DebugTimings } from '../routing/routing-metadata.js';
import type { RouteAttempt } from '../routing/route-types.js';
import type { PreparedChat } from './chat-preparation.service.js';
import { callContextFor } from './generation-ids.js';
import { openFirstEvent, type OpenedStream as OpenedEvents } from './open-stream.js';

/** A provider stream that has produced its first chunk. */
export type OpenedStream = OpenedEvents<StreamEvent>;

/**
 * One model call on a prepared request, the step every front door (chat completions,
 * responses, messages) shares: the plan's attempts in order through the route executor
 * (fallbacks, BYOK keys, stickiness), each with the adapter of its endpoint for the API the
 * front door prefers. `body` defaults to the prepared body; a multi-step caller (server
 * tools) passes the next step's.
 */
@Injectable()
export class ModelCalls {
  constructor(
    private readonly adapters: AdapterRegistry,
    private readonly router: ProviderRouter,
  ) {}

  complete(prepared: PreparedChat, api: UpstreamApi, body = prepared.body): Promise<RouteResult<NormalizedCompletion>> {
    return this.router.execute(prepared.plan, (attempt) =>
      this.adapters.forEndpoint(attempt.endpoint, api).complete(attempt.endpoint, body, callContextFor(attempt, prepared.base)),
    );
  }

  /**
   * An attempt counts as answered once its stream yields a first event, so a failure before
   * it (even after the provider's 2xx head) moves on to the next attempt: the client has seen nothing.
   */
  open(
    prepared: PreparedChat,
    api: UpstreamApi,
    options: { body?: Record<string, unknown>; timings?: DebugTimings } = {},
  ): Promise<RouteResult<OpenedStream>> {
    const body = options.body ?? prepared.body;
    return this.router.execute(prepared.plan, (attempt) =>
      this.openOne(attempt.endpoint, api, body, callContextFor(attempt, prepared.base), options.timings),
    );
  }

  /**
   * The extension point for a front door whose call differs per attempt (the Messages API
   * relays natively to Anthropic-format endpoints and translates for the others): the plan's
   * attempts in order, each with `call` and its call context.
   */
  run<T>(prepared: PreparedChat, call: (attempt: RouteAttempt, context: ChatCallContext) => Promise<T>): Promise<RouteResult<T>> {
    return this.router.execute(prepared.plan, (attempt) => call(attempt, callContextFor(attempt, prepared.base)));
  }

  private openOne(
    endpoint: RoutableEndpoint,
    api: UpstreamApi,
    body: Record<string, unknown>,
    context: ChatCallContext,
    timings?: DebugTimings,
  ): Promise<OpenedStream> {
    return openFirstEvent(
      endpoint.provider.id,
      () => this.adapters.forEndpoint(endpoint, api).stream(endpoint, body, context),
      (first) => first.type === 'chunk',
      timings,
    );
  }
}
