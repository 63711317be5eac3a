import type { NativeBatchState } from '@gw/contracts';
import { markCommitted } from '@gw/messaging';
import { FormData } from 'undici';
import { openAiErrorDetail, type UpstreamClient } from '../upstream/upstream-client.js';
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

/** OpenAI's Batch API object, the fields read here. */
interface OpenAiBatch {
  id: string;
  status: 'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'expired' | 'cancelling' | 'cancelled';
  output_file_id?: string | null;
  error_file_id?: string | null;
  errors?: { data?: Array<{ code?: string; message?: string; line?: number | null }> } | null;
  request_counts?: { total: number; completed: number; failed: number } | null;
}

/** An id the provider gave that goes back into a URL path. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,200}$/;

const STATES: Record<OpenAiBatch['status'], NativeBatchState> = {
  validating: 'in_progress',
  in_progress: 'in_progress',
  finalizing: 'in_progress',
  completed: 'ended',
  failed: 'failed',
  expired: 'expired',
  cancelling: 'cancelling',
  cancelled: 'cancelled',
};

/**
 * OpenAI's Batch API over its Files API (and the OpenAI-compatible hosts that copy it): the
 * lines go up as one JSONL file (`purpose=batch`), the batch names it, and the results come
 * back as an output file (2xx lines) and an error file (the rest).
 */
export class OpenAiBatchApi implements ProviderBatchApi {
  constructor(
    private readonly upstream: UpstreamClient,
    private readonly timeoutMs: number,
  ) {}

  async submit(target: BatchTarget, lines: readonly SubmitLine[], meta: { batchId: string; path: string }): Promise<Submitted> {
    const jsonl = `${lines.map((line) => JSON.stringify({ custom_id: line.custom_id, method: 'POST', url: meta.path, body: line.body })).join('\n')}\n`;
    const form = new FormData();
    form.set('purpose', 'batch');
    form.set('file', new Blob([jsonl], { type: 'application/jsonl' }), `${meta.batchId}.jsonl`);
    const file = this.expectOk(target, await this.call(target, 'POST', '/files', form));
    const inputFileId = (file as { id?: unknown }).id;
    if (typeof inputFileId !== 'string' || !SAFE_ID.test(inputFileId))
      throw transportFailure(target.provider.id, 'protocol', 'sent a malformed file object');
    // From here the provider may run (and bill) the batch: the batch service must not resend it.
    markCommitted();
    const created = await this.call(
      target,
      'POST',
      '/batches',
      JSON.stringify({
        input_file_id: inputFileId,
        endpoint: meta.path,
        completion_window: '24h',
        metadata: { gateway_batch_id: meta.batchId },
      }),
    );
    if (created.status >= 400) {
      // No batch will read the file: do not leave the workspace's prompts at the provider.
      await this.call(target, 'DELETE', `/files/${inputFileId}`).catch(() => undefined);
      throw failureOf(target.provider.id, created, openAiErrorDetail);
    }
    const batch = created.json as Partial<OpenAiBatch> | undefined;
    if (typeof batch?.id !== 'string' || !SAFE_ID.test(batch.id))
      throw transportFailure(target.provider.id, 'protocol', 'sent a malformed batch object');
    return { upstreamBatchId: batch.id, inputFileId };
  }

  async status(target: BatchTarget, ref: UpstreamBatchRef): Promise<UpstreamStatus> {
    const batch = await this.batch(target, ref);
    const state = STATES[batch.status];
    if (state === undefined)
      throw transportFailure(target.provider.id, 'protocol', `sent an unknown batch status "${String(batch.status)}"`);
    const counts = batch.request_counts ?? { total: 0, completed: 0, failed: 0 };
    if (state === 'failed') {
      const reasons = (batch.errors?.data ?? []).map(
        (error) => `${error.line ? `line ${error.line}: ` : ''}${error.message ?? error.code ?? 'invalid'}`,
      );
      return { state, counts, error: { message: reasons.length > 0 ? reasons.join('; ') : 'The provider refused the batch' } };
    }
    if (state !== 'ended' && state !== 'cancelled' && state !== 'expired') return { state, counts };
    const rows: UpstreamLineRow[] = [];
    for (const fileId of [batch.output_file_id, batch.error_file_id]) {
      if (!fileId) continue;
      if (!SAFE_ID.test(fileId)) throw transportFailure(target.provider.id, 'protocol', 'named a result file id that is not an id');
      const content = await this.call(target, 'GET', `/files/${fileId}/content`);
      if (content.status >= 400) throw failureOf(target.provider.id, content, openAiErrorDetail);
      for (const row of parseJsonl(target.provider.id, content.text)) rows.push(rowOf(row));
    }
    return { state, counts, rows };
  }

  async cancel(target: BatchTarget, ref: UpstreamBatchRef): Promise<NativeBatchState> {
    const response = await this.call(target, 'POST', `/batches/${ref.upstreamBatchId}/cancel`);
    if (response.status < 400) return STATES[(response.json as OpenAiBatch).status] ?? 'cancelling';
    // Already ended (or already cancelled): report where it is rather than fail.
    const batch = await this.batch(target, ref);
    const state = STATES[batch.status];
    if (state === 'in_progress') throw failureOf(target.provider.id, response, openAiErrorDetail);
    return state;
  }

  /** OpenAI keeps batch objects (no delete); what holds the workspace's data is the files. */
  async delete(target: BatchTarget, ref: UpstreamBatchRef): Promise<'deleted' | 'already_deleted'> {
    const batch = await this.batch(target, ref);
    const fileIds = [ref.inputFileId, batch.output_file_id, batch.error_file_id].filter(
      (id): id is string => typeof id === 'string' && SAFE_ID.test(id),
    );
    let deleted = 0;
    for (const fileId of fileIds) {
      const response = await this.call(target, 'DELETE', `/files/${fileId}`);
      if (response.status === 404) continue;
      if (response.status >= 400) throw failureOf(target.provider.id, response, openAiErrorDetail);
      deleted++;
    }
    return deleted > 0 ? 'deleted' : 'already_deleted';
  }

  private async batch(target: BatchTarget, ref: UpstreamBatchRef): Promise<OpenAiBatch> {
    const response = this.expectOk(target, await this.call(target, 'GET', `/batches/${ref.upstreamBatchId}`)) as Partial<OpenAiBatch>;
    if (typeof response.status !== 'string') throw transportFailure(target.provider.id, 'protocol', 'sent a malformed batch object');
    return response as OpenAiBatch;
  }

  private expectOk(target: BatchTarget, response: ApiResponse): unknown {
    if (response.status >= 400) throw failureOf(target.provider.id, response, openAiErrorDetail);
    if (response.json === undefined) throw transportFailure(target.provider.id, 'protocol', 'sent a body that is not JSON');
    return response.json;
  }

  private call(target: BatchTarget, method: 'GET' | 'POST' | 'DELETE', path: string, body?: string | FormData): Promise<ApiResponse> {
    const headers: Record<string, string> = { authorization: `Bearer ${target.apiKey}`, accept: 'application/json' };
    if (typeof body === 'string') headers['content-type'] = 'application/json';
    return timedCall(this.upstream, target.provider.id, this.timeoutMs, {
      method,
      url: `${target.provider.baseUrl}${path}`,
      headers,
      body,
    });
  }
}

/** One row of an output or error file: `{custom_id, response: {status_code, request_id, body} | null, error: {code, message} | null}`. */
function rowOf(row: Record<string, unknown>): UpstreamLineRow {
  const customId = String(row.custom_id);
  const response = row.response as { status_code?: number; request_id?: string | null; body?: unknown } | null | undefined;
  const error = row.error as { code?: string; message?: string } | null | undefined;
  if (!response) {
    return {
      custom_id: customId,
      kind: 'not_run',
      statusCode: null,
      requestId: null,
      error: { type: error?.code ?? 'batch_error', code: error?.code, message: error?.message ?? 'The request did not run' },
    };
  }
  const statusCode = typeof response.status_code === 'number' ? response.status_code : 500;
  const requestId = typeof response.request_id === 'string' ? response.request_id : null;
  if (statusCode < 400) return { custom_id: customId, kind: 'answer', statusCode, requestId, body: response.body };
  const detail = (response.body as { error?: { type?: string; message?: string; code?: string | null } } | undefined)?.error;
  return {
    custom_id: customId,
    kind: 'error',
    statusCode,
    requestId,
    body: response.body,
    error: {
      type: detail?.type ?? 'api_error',
      message: detail?.message ?? `The provider answered ${statusCode}`,
      code: detail?.code ?? undefined,
    },
  };
}
