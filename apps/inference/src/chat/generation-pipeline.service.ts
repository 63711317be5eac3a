import { Injectable } from '@nestjs/common';
import type { ChatCreateRequest, ServiceMetadataView } from '@gw/contracts';
import type { Charge } from '../pricing/charge.js';
import type { ChatCallContext, NormalizedUsage } from '../providers/provider-adapter.js';
import { RoutePlanner } from '../routing/route-planner.service.js';
import type { RouteAttempt } from '../routing/route-types.js';
import { GenerationAccounting } from '../usage/generation-accounting.service.js';
import { ChatPreparation, type PreparedChat } from './chat-preparation.service.js';
import { callContextFor, newGenerationId } from './generation-ids.js';
import { StreamCancellations } from './stream-cancellations.js';

/**
 * One front door's provider call for one attempt: the chat-completions front door calls the
 * endpoint's adapter; `/v1/messages` relays natively to Anthropic-format endpoints and
 * translates for the others. Whatever it returns carries the usage to price.
 */
export type AttemptCall<T extends { usage: NormalizedUsage }> = (attempt: RouteAttempt, context: ChatCallContext, prepared: PreparedChat) => Promise<T>;

export interface CompletedGeneration<T> {
  id: string;
  result: T;
  attempt: RouteAttempt;
  charge: Charge;
  prepared: PreparedChat;
  serviceMetadata?: ServiceMetadataView;
}

/**
 * The shared non-streamed path of every front door (chat completions, messages, ...): the
 * preparation (spend check, preset, session, BYOK, routing plan) on the internal
 * chat-completions body, the attempts in order through the route executor, then the price
 * and one usage event (GenerationAccounting). A client that leaves before the answer
 * cancels by request id, and the provider call is aborted.
 */
@Injectable()
export class GenerationPipeline {
  constructor(
    private readonly router: RoutePlanner,
    private readonly preparation: ChatPreparation,
    private readonly accounting: GenerationAccounting,
    private readonly cancellations: StreamCancellations,
  ) {}

  async complete<T extends { usage: NormalizedUsage }>(request: ChatCreateRequest, call: AttemptCall<T>): Promise<CompletedGeneration<T>> {
    if (!request.requestId) return this.run(request, call);
    const controller = this.cancellations.register(request.requestId);
    try {
      return await this.run(request, call, controller.signal);
    } finally {
      this.cancellations.release(request.requestId, controller);
    }
  }

  private async run<T extends { usage: NormalizedUsage }>(request: ChatCreateRequest, call: AttemptCall<T>, signal?: AbortSignal): Promise<CompletedGeneration<T>> {
    const prepared = await this.preparation.prepare(request, signal);
    const { result, attempt, tracker } = await this.router.execute(prepared.plan, (current) => call(current, callContextFor(current, prepared.base), prepared));
    const id = newGenerationId();
    const charge = this.accounting.settle({ generationId: id, principal: request.principal, attempt, tracker, usage: result.usage, status: 'succeeded', sessionId: prepared.sessionId });
    const serviceMetadata = request.serviceMetadata ? this.accounting.metadata(prepared.plan, tracker) : undefined;
    return { id, result, attempt, charge, prepared, serviceMetadata };
  }
}
