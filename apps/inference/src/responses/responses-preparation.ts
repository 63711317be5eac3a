import { tracingEnabled } from '@gw/telemetry';
import { recordCallerTrace } from '../shared-pipeline/caller-trace.js';
import { Injectable } from '@nestjs/common';
import type { ChatCreateRequest, ResponsesUsageView } from '@gw/contracts';
import { ChatPreparation, type PreparedChat } from '../shared-pipeline/chat-preparation.service.js';
import { buildUsageView } from '../shared-pipeline/usage-view.js';
import type { NormalizedUsage } from '../providers/provider-adapter.js';
import type { Charge } from '../pricing/charge.js';
import { fitToContext } from './context-fit.js';
import { translateResponsesRequest, type ResponsesOptions } from './responses-request.js';
import { echoedConfiguration, newItemId, toResponsesUsage, type ResponseHead } from './responses-view.js';

export interface PreparedResponse {
  prepared: PreparedChat;
  options: ResponsesOptions;
  /** Echoed configuration of the client's body (spec §2.6). */
  echo: Record<string, unknown>;
  id: string;
  createdAt: number;
}

/**
 * The Responses front door's entry into the shared pipeline: its body translated to the
 * internal form (responses-request.ts), then ChatPreparation (spend check, the `prompt`
 * preset with its variables, session, BYOK, routing plan), then `truncation: "auto"` against
 * the smallest context window among the planned models.
 */
@Injectable()
export class ResponsesPreparation {
  constructor(private readonly preparation: ChatPreparation) {}

  async prepare(
    request: Pick<ChatCreateRequest, 'principal' | 'body' | 'sessionId' | 'client'>,
    signal?: AbortSignal,
  ): Promise<PreparedResponse> {
    const translated = translateResponsesRequest(request.body, request.principal.workspaceId);
    // The translation drops `trace`: the caller's trace metadata is read from the Responses body (spec §4.5).
    if (tracingEnabled() && translated.chatBody.trace === undefined) recordCallerTrace(request.body.trace);
    const prepared = await this.preparation.prepare(
      { principal: request.principal, body: translated.chatBody, sessionId: request.sessionId, client: request.client },
      signal,
      {
        presetVariables: translated.presetVariables,
        stream: request.body.stream === true,
      },
    );
    if (translated.options.truncation === 'auto') this.truncate(prepared);
    return {
      prepared,
      options: translated.options,
      echo: echoedConfiguration(request.body),
      id: newItemId('resp'),
      createdAt: Math.floor(Date.now() / 1000),
    };
  }

  private truncate(prepared: PreparedChat): void {
    const contextLength = Math.min(...prepared.plan.candidates.map((candidate) => candidate.model.config.contextLength));
    if (!Number.isFinite(contextLength)) return;
    const budget = typeof prepared.body.max_completion_tokens === 'number' ? prepared.body.max_completion_tokens : 0;
    prepared.body = {
      ...prepared.body,
      messages: fitToContext(prepared.body.messages as Array<Record<string, unknown>>, contextLength, budget),
    };
  }
}

export function headOf(response: PreparedResponse, model: string): ResponseHead {
  return { id: response.id, createdAt: response.createdAt, model, echo: response.echo };
}

/** One step's usage, priced by the pipeline, in the Responses shape. */
export function stepUsage(usage: NormalizedUsage, charge: Charge): ResponsesUsageView {
  return toResponsesUsage(buildUsageView(usage, charge.upstream, charge.isByok, charge.charged));
}
