import { Injectable } from '@nestjs/common';
import type { ChatCreateRequest, ResponsesResponseView } from '@gw/contracts';
import { newGenerationId } from '../chat/generation-ids.js';
import { ModelCalls } from '../chat/model-calls.service.js';
import { StreamCancellations } from '../chat/stream-cancellations.js';
import { runServerToolLoop } from '../server-tools/server-tool-loop.js';
import { extractServerTools } from '../server-tools/server-tool-request.js';
import { ServerToolRunner } from '../server-tools/server-tool-runner.service.js';
import { GenerationAccounting } from '../usage/generation-accounting.service.js';
import { loopOutputItems } from './server-tool-items.js';
import { runSteps, sumUsage } from './response-steps.js';
import { headOf, ResponsesPreparation, stepUsage } from './responses-preparation.js';
import { outputItemsOf, responseObject, statusOf } from './responses-view.js';

/**
 * `POST /v1/responses` without streaming, on the chat pipeline (ADR 0023): preparation
 * (ResponsesPreparation -> ChatPreparation), then each step's model call (ModelCalls, native
 * Responses where the catalog says so), each priced and recorded as one generation
 * (GenerationAccounting), then the spec §2.6 response object. A request that fails before an
 * answer is an error envelope with the status chat completions would give.
 */
@Injectable()
export class ResponsesService {
  constructor(
    private readonly preparation: ResponsesPreparation,
    private readonly calls: ModelCalls,
    private readonly accounting: GenerationAccounting,
    private readonly cancellations: StreamCancellations,
    private readonly serverTools: ServerToolRunner,
  ) {}

  /** The client may leave before the answer: the gateway then cancels by request id, and the provider call is aborted. */
  async create(request: ChatCreateRequest): Promise<ResponsesResponseView> {
    if (!request.requestId) return this.respond(request);
    const controller = this.cancellations.register(request.requestId);
    try {
      return await this.respond(request, controller.signal);
    } finally {
      this.cancellations.release(request.requestId, controller);
    }
  }

  private async respond(request: ChatCreateRequest, signal?: AbortSignal): Promise<ResponsesResponseView> {
    const { principal } = request;
    const response = await this.preparation.prepare(request, signal);
    const { prepared, options } = response;
    const tools = extractServerTools(prepared.body);
    prepared.body = tools.body;
    if (tools.plan) {
      // Server tools (ADR 0041): the loop's model calls, each its own generation.
      const steps = await runServerToolLoop({
        body: prepared.body,
        plan: tools.plan,
        runner: this.serverTools,
        signal,
        call: async (body) => {
          const { result: completion, attempt, tracker } = await this.calls.complete(prepared, 'responses', body);
          return { completion, attempt, tracker };
        },
        settle: async (step, usage, toolCost) => {
          const charge = await this.accounting.settle({ generationId: newGenerationId(), principal, attempt: step.attempt, tracker: step.tracker, usage, status: 'succeeded', sessionId: prepared.sessionId, toolCost });
          return { charge, extra: undefined };
        },
      });
      const last = steps.at(-1)!;
      const { status, incomplete_details } = statusOf(last.completion.choices[0]?.finish_reason ?? null);
      const view = responseObject(headOf(response, last.attempt.modelId), {
        status,
        incomplete_details,
        error: null,
        output: loopOutputItems(steps, options),
        usage: sumUsage(steps.map((step) => stepUsage(step.usage, step.charge))),
        serviceTier: last.completion.serviceTier,
      });
      if (request.serviceMetadata) view.service_metadata = this.accounting.metadata(prepared.plan, last.tracker);
      return view;
    }
    const steps = await runSteps(prepared.body, async (body) => {
      const { result: completion, attempt, tracker } = await this.calls.complete(prepared, 'responses', body);
      const charge = await this.accounting.settle({ generationId: newGenerationId(), principal, attempt, tracker, usage: completion.usage, status: 'succeeded', sessionId: prepared.sessionId });
      return { completion, attempt, tracker, usage: stepUsage(completion.usage, charge) };
    });
    const last = steps.at(-1)!;
    const { status, incomplete_details } = statusOf(last.completion.choices[0]?.finish_reason ?? null);
    const view = responseObject(headOf(response, last.attempt.modelId), {
      status,
      incomplete_details,
      error: null,
      output: steps.flatMap((step) => outputItemsOf(step.completion, options)),
      usage: sumUsage(steps.map((step) => step.usage)),
      serviceTier: last.completion.serviceTier,
    });
    if (request.serviceMetadata) view.service_metadata = this.accounting.metadata(prepared.plan, last.tracker);
    return view;
  }
}
