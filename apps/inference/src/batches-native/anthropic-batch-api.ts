import type { NativeBatchState } from '@gw/contracts';
import { markCommitted } from '@gw/messaging';
import { anthropicErrorDetail } from '../providers/anthropic/anthropic-errors.js';
import { ANTHROPIC_VERSION } from '../providers/anthropic/anthropic.adapter.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import { transportFailure } from '../upstream/upstream-failure.js';
import {
  failureOf,
  parseJsonl,
  timedCall,
  type ApiResponse,
  type BatchTarget,
  type ProviderBatchApi,
  type SubmitLine,
  type Submitted,
  type UpstreamBatchRef,
  type UpstreamLineRow,
  type UpstreamStatus,
} from './provider-batch-api.js';

/** Anthropic's Message Batch object, the fields read here. */
interface MessageBatch {
  id: string;
  processing_status: 'in_progress' | 'canceling' | 'ended';
  cancel_initiated_at: string | null;
  request_counts: { processing: number; succeeded: number; errored: number; canceled: number; expired: number };
}

/** One line of the results JSONL. */
interface IndividualResponse {
  custom_id: string;
  result:
    | { type: 'succeeded'; message: unknown }
    | { type: 'errored'; error: { type?: string; error?: { type?: string; message?: string }; request_id?: string | null } }
    | { type: 'canceled' }
    | { type: 'expired' };
}

/**
 * Anthropic's Message Batches: the lines go up inline as `requests: [{custom_id, params}]`
 * and the results come back as JSONL. The results are read from `{baseUrl}/messages/batches/{id}/results`,
 * not from the `results_url` the provider names, so the key is only ever sent to the configured host.
 */
export class AnthropicBatchApi implements ProviderBatchApi {
  constructor(
    private readonly upstream: UpstreamClient,
    private readonly timeoutMs: number,
  ) {}

  async submit(target: BatchTarget, lines: readonly SubmitLine[]): Promise<Submitted> {
    markCommitted(); // the provider may run (and bill) the batch from here
    const created = this.expectOk(
      target,
      await this.call(
        target,
        'POST',
        '/messages/batches',
        JSON.stringify({ requests: lines.map((line) => ({ custom_id: line.custom_id, params: line.body })) }),
      ),
    );
    const id = (created as { id?: unknown }).id;
    if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,200}$/.test(id))
      throw transportFailure(target.provider.id, 'protocol', 'sent a malformed message batch');
    return { upstreamBatchId: id };
  }

  async status(target: BatchTarget, ref: UpstreamBatchRef): Promise<UpstreamStatus> {
    const batch = await this.batch(target, ref);
    const counts = batch.request_counts;
    const total = counts.processing + counts.succeeded + counts.errored + counts.canceled + counts.expired;
    const tally = { total, completed: counts.succeeded, failed: counts.errored + counts.canceled + counts.expired };
    if (batch.processing_status === 'in_progress') return { state: 'in_progress', counts: tally };
    if (batch.processing_status === 'canceling') return { state: 'cancelling', counts: tally };
    const state: NativeBatchState = batch.cancel_initiated_at ? 'cancelled' : counts.expired > 0 ? 'expired' : 'ended';
    const results = await this.call(target, 'GET', `/messages/batches/${ref.upstreamBatchId}/results`);
    if (results.status >= 400) throw failureOf(target.provider.id, results, anthropicErrorDetail);
    const rows = parseJsonl(target.provider.id, results.text).map((row) => rowOf(row as unknown as IndividualResponse));
    return { state, counts: tally, rows };
  }

  async cancel(target: BatchTarget, ref: UpstreamBatchRef): Promise<NativeBatchState> {
    const response = await this.call(target, 'POST', `/messages/batches/${ref.upstreamBatchId}/cancel`);
    if (response.status < 400) return (response.json as MessageBatch).processing_status === 'ended' ? 'cancelled' : 'cancelling';
    const batch = await this.batch(target, ref);
    if (batch.processing_status === 'in_progress') throw failureOf(target.provider.id, response, anthropicErrorDetail);
    return batch.processing_status === 'canceling' ? 'cancelling' : batch.cancel_initiated_at ? 'cancelled' : 'ended';
  }

  /** Deleting the batch deletes its requests and results (Anthropic keeps no separate files). */
  async delete(target: BatchTarget, ref: UpstreamBatchRef): Promise<'deleted' | 'already_deleted'> {
    const response = await this.call(target, 'DELETE', `/messages/batches/${ref.upstreamBatchId}`);
    if (response.status === 404) return 'already_deleted';
    if (response.status >= 400) throw failureOf(target.provider.id, response, anthropicErrorDetail);
    return 'deleted';
  }

  private async batch(target: BatchTarget, ref: UpstreamBatchRef): Promise<MessageBatch> {
    const batch = this.expectOk(
      target,
      await this.call(target, 'GET', `/messages/batches/${ref.upstreamBatchId}`),
    ) as Partial<MessageBatch>;
    if (typeof batch.processing_status !== 'string' || !batch.request_counts)
      throw transportFailure(target.provider.id, 'protocol', 'sent a malformed message batch');
    return batch as MessageBatch;
  }

  private expectOk(target: BatchTarget, response: ApiResponse): unknown {
    if (response.status >= 400) throw failureOf(target.provider.id, response, anthropicErrorDetail);
    if (response.json === undefined) throw transportFailure(target.provider.id, 'protocol', 'sent a body that is not JSON');
    return response.json;
  }

  private call(target: BatchTarget, method: 'GET' | 'POST' | 'DELETE', path: string, body?: string): Promise<ApiResponse> {
    const headers: Record<string, string> = {
      'x-api-key': target.apiKey,
      'anthropic-version': ANTHROPIC_VERSION,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    return timedCall(this.upstream, target.provider.id, this.timeoutMs, {
      method,
      url: `${target.provider.baseUrl}${path}`,
      headers,
      body,
    });
  }
}

/** Anthropic's HTTP status for an error type, for the line's `status_code` (the results carry no status). */
const ERROR_STATUS: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 529,
};

function rowOf(row: IndividualResponse): UpstreamLineRow {
  const { custom_id: customId, result } = row;
  switch (result.type) {
    case 'succeeded':
      return { custom_id: customId, kind: 'answer', statusCode: 200, requestId: null, body: result.message };
    case 'errored': {
      const type = result.error.error?.type ?? 'api_error';
      return {
        custom_id: customId,
        kind: 'error',
        statusCode: ERROR_STATUS[type] ?? 500,
        requestId: result.error.request_id ?? null,
        body: result.error,
        error: { type, message: result.error.error?.message ?? 'The request failed' },
      };
    }
    case 'canceled':
      return {
        custom_id: customId,
        kind: 'not_run',
        statusCode: null,
        requestId: null,
        error: { type: 'batch_cancelled', code: 'batch_cancelled', message: 'This request was not run: the batch was cancelled' },
      };
    case 'expired':
      return {
        custom_id: customId,
        kind: 'not_run',
        statusCode: null,
        requestId: null,
        error: { type: 'batch_expired', code: 'batch_expired', message: 'This request could not be run before the batch window expired' },
      };
  }
}
