import { Inject, Injectable } from '@nestjs/common';
import {
  ChatCreate,
  EmbeddingsCreate,
  MessagesCreate,
  ResponsesCreate,
  type BatchEndpoint,
  type Principal,
  type RpcMessage,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { actingWithGrant, RpcClient } from '@gw/messaging';
import { lineUsageOf } from '../batches/line-usage.js';
import { BATCH_ENV, type BatchEnv } from '../env.js';
import type { ClaimedLine, LineOutcome } from './line-claims.js';
import { lineMessage, type LineMessage } from './line-message.js';

/** The inference message that answers each batch endpoint: the live endpoints' own (issue 13). */
const MESSAGE_OF: Record<BatchEndpoint, RpcMessage<LineMessage, object>> = {
  '/v1/chat/completions': ChatCreate,
  '/v1/responses': ResponsesCreate,
  '/v1/messages': MessagesCreate,
  '/v1/embeddings': EmbeddingsCreate,
};

/** Failures worth another try later (the provider or inference was busy or away), not the line's answer. */
const RETRYABLE = new Set([408, 429, 502, 503, 504]);

export type LineRun = { kind: 'done'; outcome: LineOutcome } | { kind: 'retry'; error: GatewayError };

/**
 * Runs one line through inference over NATS, as the principal that submitted the batch with
 * `batchId` set on it: inference prices the line and records its usage event, which management
 * leaves uncharged (the batch is charged once).
 */
@Injectable()
export class LineExecutor {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(BATCH_ENV) private readonly env: BatchEnv,
  ) {}

  async run(line: ClaimedLine): Promise<LineRun> {
    const endpoint = line.endpoint as BatchEndpoint;
    const principal = { ...(line.principal as unknown as Principal), batchId: line.batchId };
    const body: Record<string, unknown> = { ...line.body, model: line.model };
    if (line.provider && body.provider === undefined) body.provider = line.provider;
    try {
      const message = MESSAGE_OF[endpoint];
      const payload = await lineMessage(message.subject, principal, body);
      const answer = (await actingWithGrant(line.principalGrant, () =>
        this.rpc.send(message, payload, this.env.BATCH_LINE_TIMEOUT_MS),
      )) as Record<string, unknown>;
      const usage = lineUsageOf(endpoint, answer);
      const generationId = typeof answer.id === 'string' ? answer.id : null;
      return {
        kind: 'done',
        outcome: {
          status: 'completed',
          response: { status_code: 200, request_id: generationId, body: answer },
          error: null,
          usage,
          cost: usage.cost,
          generationId,
        },
      };
    } catch (caught) {
      const error =
        caught instanceof GatewayError ? caught : new GatewayError(500, caught instanceof Error ? caught.message : String(caught));
      if (RETRYABLE.has(error.status) && line.attempts < this.env.BATCH_LINE_MAX_ATTEMPTS) return { kind: 'retry', error };
      const param = typeof error.metadata?.param === 'string' ? error.metadata.param : null;
      return {
        kind: 'done',
        outcome: {
          status: 'failed',
          // Spec §2.1.1: a failed line has no response; its failure is `error`.
          response: null,
          error: { type: error.errorType, message: error.message, param, error_type: error.errorType },
          usage: null,
          cost: null,
          generationId: null,
        },
      };
    }
  }
}
