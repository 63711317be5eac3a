import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkAnthropicHeaders } from '../anthropic.ts';
import { anthropicError, anthropicErrorForStatus } from '../errors.ts';
import { randomId, sendJson } from '../http.ts';
import { isRecord, parseJsonObject } from '../json.ts';
import { BatchJob, batchDirectives, selfBaseUrl, type LineOutcome } from './batch-jobs.ts';

/**
 * Anthropic's Message Batches: POST /v1/messages/batches, GET /v1/messages/batches[/{id}],
 * GET .../{id}/results (JSONL), POST .../{id}/cancel, DELETE .../{id}.
 */

const CUSTOM_ID = /^[a-zA-Z0-9_-]{1,64}$/;
const MAX_REQUESTS = 100_000;
const WINDOW_MS = 24 * 3600 * 1000;

interface MessageBatch {
  id: string;
  createdAt: number;
  cancelInitiatedAt?: number;
  job: BatchJob;
  resultsBase: string;
}

const batches = new Map<string, MessageBatch>();
const invalid = (message: string) => anthropicError('invalid_request_error', message);
const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

function view(batch: MessageBatch): Record<string, unknown> {
  const { job } = batch;
  const ended = job.phase === 'ended';
  return {
    id: batch.id,
    type: 'message_batch',
    processing_status: ended ? 'ended' : batch.cancelInitiatedAt !== undefined ? 'canceling' : 'in_progress',
    // Anthropic counts only `processing` until the whole batch has ended.
    request_counts: ended
      ? { processing: 0, succeeded: job.succeeded, errored: job.errored, canceled: job.count('cancelled'), expired: job.count('expired') }
      : { processing: job.lines.length, succeeded: 0, errored: 0, canceled: 0, expired: 0 },
    ended_at: iso(job.endedAt),
    created_at: iso(batch.createdAt),
    expires_at: iso(batch.createdAt + WINDOW_MS),
    archived_at: null,
    cancel_initiated_at: iso(batch.cancelInitiatedAt),
    results_url: ended ? `${batch.resultsBase}/${batch.id}/results` : null,
  };
}

function resultOf(outcome: LineOutcome): Record<string, unknown> {
  if (outcome.kind === 'cancelled') return { type: 'canceled' };
  if (outcome.kind === 'expired') return { type: 'expired' };
  if (outcome.status !== undefined && outcome.status < 400) return { type: 'succeeded', message: outcome.body };
  const body =
    isRecord(outcome.body) && outcome.body.type === 'error' ? outcome.body : anthropicError('api_error', 'Internal server error');
  return { type: 'errored', error: { ...body, request_id: `req_${randomId(24)}` } };
}

function checked(req: IncomingMessage, res: ServerResponse): boolean {
  const error = checkAnthropicHeaders(req);
  if (error) sendJson(res, error.status, error.body);
  return !error;
}

/** POST /v1/messages/batches */
export async function handleCreateMessageBatch(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
  if (!checked(req, res)) return;
  const body = parseJsonObject(raw);
  if (!body) return sendJson(res, 400, invalid('There was an issue with your request body: it is not valid JSON.'));
  for (const field of Object.keys(body))
    if (field !== 'requests') return sendJson(res, 400, invalid(`${field}: Extra inputs are not permitted`));
  const { requests } = body;
  if (!Array.isArray(requests)) return sendJson(res, 400, invalid('requests: Field required'));
  if (requests.length === 0) return sendJson(res, 400, invalid('requests: List should have at least 1 item after validation, not 0'));
  if (requests.length > MAX_REQUESTS)
    return sendJson(res, 400, invalid(`requests: List should have at most ${MAX_REQUESTS} items after validation, not ${requests.length}`));
  const seen = new Set<string>();
  for (let i = 0; i < requests.length; i++) {
    const request: unknown = requests[i];
    if (!isRecord(request)) return sendJson(res, 400, invalid(`requests.${i}: Input should be a valid dictionary`));
    for (const field of Object.keys(request))
      if (field !== 'custom_id' && field !== 'params')
        return sendJson(res, 400, invalid(`requests.${i}.${field}: Extra inputs are not permitted`));
    const { custom_id: customId, params } = request;
    if (typeof customId !== 'string' || !CUSTOM_ID.test(customId))
      return sendJson(res, 400, invalid(`requests.${i}.custom_id: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'`));
    if (seen.has(customId))
      return sendJson(res, 400, invalid(`Duplicate custom_id: ${customId}. Each request in a batch must have a unique custom_id.`));
    seen.add(customId);
    if (!isRecord(params)) return sendJson(res, 400, invalid(`requests.${i}.params: Field required`));
    if (typeof params.model !== 'string') return sendJson(res, 400, invalid(`requests.${i}.params.model: Field required`));
    if (params.stream === true) return sendJson(res, 400, invalid(`requests.${i}.params.stream: streaming is not supported in batches`));
  }
  const first = (requests[0] as { params: { model: string } }).params.model;
  const directives = batchDirectives(first, req.headers);
  if (directives.createStatus !== undefined)
    return sendJson(res, directives.createStatus, anthropicErrorForStatus(directives.createStatus, first));
  if (directives.fail) return sendJson(res, 400, invalid('The batch was refused by the provider (simulated).'));
  const headers: Record<string, string> = { 'anthropic-version': String(req.headers['anthropic-version']) };
  if (typeof req.headers['x-api-key'] === 'string') headers['x-api-key'] = req.headers['x-api-key'];
  if (req.headers.authorization) headers.authorization = req.headers.authorization;
  const lines = (requests as Array<{ custom_id: string; params: Record<string, unknown> }>).map((request) => ({
    customId: request.custom_id,
    path: '/anthropic/v1/messages',
    body: request.params,
  }));
  const host = req.headers.host ?? selfBaseUrl(req).slice('http://'.length);
  const batch: MessageBatch = {
    id: `msgbatch_${randomId(24)}`,
    createdAt: Date.now(),
    job: new BatchJob(lines, selfBaseUrl(req), headers, directives),
    resultsBase: `http://${host}/anthropic/v1/messages/batches`,
  };
  batches.set(batch.id, batch);
  sendJson(res, 200, view(batch));
}

/** Everything under /v1/messages/batches but create. */
export function handleMessageBatchRoute(
  req: IncomingMessage,
  res: ServerResponse,
  method: string,
  rest: string,
  query: URLSearchParams,
): void {
  req.resume();
  if (!checked(req, res)) return;
  if (rest === '' && method === 'GET') {
    const limit = Math.min(Math.max(Number(query.get('limit') ?? 20) || 20, 1), 1000);
    const all = [...batches.values()].reverse();
    const after = query.get('after_id');
    const start = after ? all.findIndex((batch) => batch.id === after) + 1 : 0;
    const page = all.slice(start, start + limit).map(view);
    return sendJson(res, 200, {
      data: page,
      has_more: start + limit < all.length,
      first_id: (page[0]?.id as string | undefined) ?? null,
      last_id: (page.at(-1)?.id as string | undefined) ?? null,
    });
  }
  const [id = '', sub] = rest.slice(1).split('/');
  const batch = batches.get(id);
  if (!batch) return sendJson(res, 404, anthropicError('not_found_error', `Message Batch ${id} not found.`));
  const ended = batch.job.phase === 'ended';
  if (method === 'GET' && sub === undefined) return sendJson(res, 200, view(batch));
  if (method === 'GET' && sub === 'results') {
    if (!ended) return sendJson(res, 400, invalid(`Message Batch ${id} has not yet ended; results are not available.`));
    const rows = batch.job.lines.map((line) =>
      JSON.stringify({ custom_id: line.customId, result: resultOf(batch.job.outcomes.get(line.customId)!) }),
    );
    const text = `${rows.join('\n')}\n`;
    res.writeHead(200, { 'content-type': 'application/binary', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    return;
  }
  if (method === 'POST' && sub === 'cancel') {
    if (ended) return sendJson(res, 400, invalid(`Message Batch ${id} has already ended and cannot be canceled.`));
    batch.cancelInitiatedAt ??= Date.now();
    batch.job.cancel();
    return sendJson(res, 200, view(batch));
  }
  if (method === 'DELETE' && sub === undefined) {
    if (!ended) return sendJson(res, 400, invalid(`Message Batch ${id} cannot be deleted while it is still processing; cancel it first.`));
    batches.delete(id);
    return sendJson(res, 200, { id, type: 'message_batch_deleted' });
  }
  sendJson(res, 404, anthropicError('not_found_error', `Not found: ${method} /v1/messages/batches${rest}`));
}
