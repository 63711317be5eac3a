import type { NativeBatchState } from '@gw/contracts';
import type { FormData } from 'undici';
import type { ProviderConfig } from '../catalog/catalog.schema.js';
import type { UpstreamClient } from '../upstream/upstream-client.js';
import { httpFailure, transportFailure, UpstreamFailure } from '../upstream/upstream-failure.js';

/** Where a provider's batch API is and which key calls it (the gateway's, or the workspace's BYOK key). */
export interface BatchTarget {
  provider: ProviderConfig;
  apiKey: string;
}

export interface SubmitLine {
  custom_id: string;
  /** The provider's request body (line-codecs.ts). */
  body: Record<string, unknown>;
}

export interface Submitted {
  upstreamBatchId: string;
  inputFileId?: string;
}

/** One line's outcome as the provider reported it, before translation. */
export interface UpstreamLineRow {
  custom_id: string;
  /** `answer`: a 2xx body; `error`: the provider's error for the line; `not_run`: cancelled or expired first. */
  kind: 'answer' | 'error' | 'not_run';
  statusCode: number | null;
  requestId: string | null;
  body?: unknown;
  /** For `error` and `not_run`: the provider's type / code and message. */
  error?: { type: string; message: string; code?: string };
}

export interface UpstreamStatus {
  state: NativeBatchState;
  counts: { total: number; completed: number; failed: number };
  error?: { message: string };
  /** Set once the batch ended (ended, cancelled, expired). */
  rows?: UpstreamLineRow[];
}

export interface UpstreamBatchRef {
  upstreamBatchId: string;
  inputFileId?: string;
}

/** One provider's batch API (OpenAI's Batch + Files APIs, Anthropic's Message Batches). */
export interface ProviderBatchApi {
  submit(target: BatchTarget, lines: readonly SubmitLine[], meta: { batchId: string; path: string }): Promise<Submitted>;
  status(target: BatchTarget, ref: UpstreamBatchRef): Promise<UpstreamStatus>;
  /** Asks the provider to stop; answers the state it reports after. */
  cancel(target: BatchTarget, ref: UpstreamBatchRef): Promise<NativeBatchState>;
  /** Removes the batch (where the provider can) and its files; `already_deleted` when nothing was left. */
  delete(target: BatchTarget, ref: UpstreamBatchRef): Promise<'deleted' | 'already_deleted'>;
}

export interface ApiResponse {
  status: number;
  text: string;
  json?: unknown;
  retryAfterMs?: number;
}

/** Every call with a whole-call deadline; a deadline that passes is a timeout failure (retryable), not a cancel. */
export async function timedCall(
  upstream: UpstreamClient,
  provider: string,
  timeoutMs: number,
  options: { method: 'GET' | 'POST' | 'DELETE'; url: string; headers: Record<string, string>; body?: string | FormData },
): Promise<ApiResponse> {
  const signal = AbortSignal.timeout(timeoutMs);
  try {
    const response = await upstream.call(provider, { ...options, signal });
    let json: unknown;
    try {
      json = response.text.length > 0 ? JSON.parse(response.text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, text: response.text, json, retryAfterMs: response.retryAfterMs };
  } catch (error) {
    if (signal.aborted && error instanceof UpstreamFailure && error.kind === 'aborted')
      throw transportFailure(provider, 'timeout', `did not answer its batch API in ${timeoutMs} ms`);
    throw error;
  }
}

/** A provider error answer as an UpstreamFailure (status mapping and retryability as for live calls). */
export function failureOf(
  provider: string,
  response: ApiResponse,
  detail: (body: unknown) => { message?: string; code?: string },
): UpstreamFailure {
  const { message, code } = detail(response.json);
  return httpFailure(provider, response.status, message, code, response.retryAfterMs);
}

/** JSONL text as its objects (blank lines skipped; a line that is not JSON is a protocol failure). */
export function parseJsonl(provider: string, text: string): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      rows.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      throw transportFailure(provider, 'protocol', 'sent batch results that are not JSONL');
    }
  }
  return rows;
}
