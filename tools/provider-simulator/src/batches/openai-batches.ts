import type { IncomingMessage, ServerResponse } from 'node:http';
import { openaiError, openaiErrorForStatus } from '../errors.ts';
import { nowSeconds, randomId, sendJson } from '../http.ts';
import { isRecord, parseJsonObject } from '../json.ts';
import { checkOpenAIAuth } from '../openai.ts';
import { BatchJob, batchDirectives, lineModel, selfBaseUrl, type BatchLine, type LineOutcome } from './batch-jobs.ts';
import { getFile, storeOutputFile } from './openai-files.ts';

/** OpenAI's Batch API: POST /v1/batches, GET /v1/batches[/{id}], POST /v1/batches/{id}/cancel. */

/** The endpoints the simulator can run a batch on (OpenAI takes a few more it does not serve). */
export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/embeddings', '/v1/responses'] as const;
const CREATE_FIELDS = new Set(['input_file_id', 'endpoint', 'completion_window', 'metadata', 'output_expires_after']);
const WINDOW_SECONDS = 24 * 3600;
const MAX_LINES = 50_000;

interface BatchError {
  code: string;
  message: string;
  param: string | null;
  line: number | null;
}

interface OpenAiBatch {
  id: string;
  endpoint: string;
  inputFileId: string;
  metadata: Record<string, string> | null;
  createdAt: number;
  model: string | null;
  /** Set when validation refused the batch: it ends `failed` after the validating delay. */
  errors: BatchError[];
  job?: BatchJob;
  cancellingAt?: number;
  outputFileId?: string | null;
  errorFileId?: string | null;
  finalizedAt?: number;
  validatingUntil: number;
}

const batches = new Map<string, OpenAiBatch>();

const bad = (message: string, param: string | null = null, code: string | null = null) =>
  openaiError(message, 'invalid_request_error', param, code);

/** Validates the JSONL input as OpenAI does: one request per line, all to the batch's endpoint, one model. */
function readInput(content: string, endpoint: string): { lines: BatchLine[]; errors: BatchError[]; model: string | null } {
  const lines: BatchLine[] = [];
  const errors: BatchError[] = [];
  const seen = new Set<string>();
  let model: string | null = null;
  const rows = content.split('\n');
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index]!.trim();
    if (row === '') continue;
    const at = index + 1;
    let parsed: unknown;
    try {
      parsed = JSON.parse(row);
    } catch {
      errors.push({ code: 'invalid_json_line', message: 'This line is not parseable as valid JSON.', param: null, line: at });
      continue;
    }
    if (!isRecord(parsed)) {
      errors.push({ code: 'invalid_request', message: 'Each line must be a JSON object.', param: null, line: at });
      continue;
    }
    const { custom_id: customId, method, url, body } = parsed;
    if (typeof customId !== 'string' || customId === '')
      errors.push({ code: 'missing_required_parameter', message: 'Missing required parameter: custom_id.', param: 'custom_id', line: at });
    else if (seen.has(customId))
      errors.push({
        code: 'duplicate_custom_id',
        message:
          'The custom_id for this request is a duplicate of another request. The custom_id parameter must be unique for each request in a batch.',
        param: 'custom_id',
        line: at,
      });
    if (method !== 'POST')
      errors.push({ code: 'invalid_method', message: "Invalid value for 'method': only POST is supported.", param: 'method', line: at });
    if (url !== endpoint)
      errors.push({
        code: 'mismatched_endpoint',
        message: `The provided endpoint '${String(url)}' does not match the batch endpoint '${endpoint}'.`,
        param: 'url',
        line: at,
      });
    if (!isRecord(body)) {
      errors.push({ code: 'missing_required_parameter', message: 'Missing required parameter: body.', param: 'body', line: at });
      continue;
    }
    const lineModelName = typeof body.model === 'string' ? body.model : null;
    if (lineModelName === null)
      errors.push({
        code: 'missing_required_parameter',
        message: "Missing required parameter: 'body.model'.",
        param: 'body.model',
        line: at,
      });
    else if (model !== null && lineModelName !== model)
      errors.push({ code: 'model_mismatch', message: 'All requests in a batch must use the same model.', param: 'body.model', line: at });
    model ??= lineModelName;
    if (body.stream === true)
      errors.push({ code: 'invalid_request', message: 'Streaming is not supported in the Batch API.', param: 'body.stream', line: at });
    if (typeof customId === 'string') {
      seen.add(customId);
      lines.push({ customId, path: endpoint, body });
    }
  }
  if (lines.length === 0 && errors.length === 0)
    errors.push({ code: 'empty_file', message: 'The input file is empty.', param: null, line: null });
  if (lines.length > MAX_LINES)
    errors.push({
      code: 'too_many_requests',
      message: `The batch input file has more than ${MAX_LINES} requests.`,
      param: null,
      line: null,
    });
  return { lines, errors, model };
}

function statusOf(batch: OpenAiBatch): string {
  const job = batch.job;
  if (batch.errors.length > 0) return Date.now() < batch.validatingUntil ? 'validating' : 'failed';
  if (!job) return 'validating';
  if (job.phase !== 'ended') {
    if (job.cancelRequested) return 'cancelling';
    return job.phase === 'queued' ? 'validating' : 'in_progress';
  }
  finalize(batch, job);
  if (job.cancelRequested) return 'cancelled';
  return job.expired ? 'expired' : 'completed';
}

/** The output file (2xx answers) and error file (error answers, expired and cancelled lines), written once. */
function finalize(batch: OpenAiBatch, job: BatchJob): void {
  if (batch.finalizedAt !== undefined) return;
  const output: string[] = [];
  const errors: string[] = [];
  for (const line of job.lines) {
    const outcome = job.outcomes.get(line.customId)!;
    const row = outputRow(outcome);
    (outcome.kind === 'ran' && outcome.status! < 400 ? output : errors).push(JSON.stringify(row));
  }
  batch.outputFileId = output.length > 0 ? storeOutputFile(`${batch.id}_output.jsonl`, `${output.join('\n')}\n`).id : null;
  batch.errorFileId = errors.length > 0 ? storeOutputFile(`${batch.id}_error.jsonl`, `${errors.join('\n')}\n`).id : null;
  batch.finalizedAt = nowSeconds();
}

function outputRow(outcome: LineOutcome): Record<string, unknown> {
  const id = `batch_req_${randomId(24)}`;
  if (outcome.kind === 'expired') {
    return {
      id,
      custom_id: outcome.customId,
      response: null,
      error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' },
    };
  }
  if (outcome.kind === 'cancelled') {
    return {
      id,
      custom_id: outcome.customId,
      response: null,
      error: { code: 'batch_cancelled', message: 'This request was not executed because the batch was cancelled.' },
    };
  }
  return {
    id,
    custom_id: outcome.customId,
    response: { status_code: outcome.status, request_id: outcome.requestId ?? randomId(32).toLowerCase(), body: outcome.body },
    error: null,
  };
}

function view(batch: OpenAiBatch): Record<string, unknown> {
  const status = statusOf(batch);
  const job = batch.job;
  const seconds = (ms: number | undefined) => (ms === undefined ? null : Math.floor(ms / 1000));
  const ended = job?.phase === 'ended';
  const notRun = job ? job.count('expired') + job.count('cancelled') : 0;
  return {
    id: batch.id,
    object: 'batch',
    endpoint: batch.endpoint,
    model: batch.model,
    errors: batch.errors.length > 0 && status === 'failed' ? { object: 'list', data: batch.errors } : null,
    input_file_id: batch.inputFileId,
    completion_window: '24h',
    status,
    output_file_id: ended ? (batch.outputFileId ?? null) : null,
    error_file_id: ended ? (batch.errorFileId ?? null) : null,
    created_at: batch.createdAt,
    in_progress_at: seconds(job?.startedAt),
    expires_at: batch.createdAt + WINDOW_SECONDS,
    finalizing_at: ended ? (batch.finalizedAt ?? null) : null,
    completed_at: status === 'completed' ? (batch.finalizedAt ?? null) : null,
    failed_at: status === 'failed' ? Math.floor(batch.validatingUntil / 1000) : null,
    expired_at: status === 'expired' ? (batch.finalizedAt ?? null) : null,
    cancelling_at: batch.cancellingAt ?? null,
    cancelled_at: status === 'cancelled' ? (batch.finalizedAt ?? null) : null,
    request_counts: { total: job ? job.lines.length : 0, completed: job ? job.succeeded : 0, failed: job ? job.errored + notRun : 0 },
    metadata: batch.metadata,
  };
}

function authorized(req: IncomingMessage, res: ServerResponse): boolean {
  const error = checkOpenAIAuth(req);
  if (error) sendJson(res, 401, error);
  return !error;
}

/** POST /v1/batches */
export async function handleCreateBatch(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
  if (!authorized(req, res)) return;
  const body = parseJsonObject(raw);
  if (!body) return sendJson(res, 400, bad('We could not parse the JSON body of your request.'));
  for (const field of Object.keys(body))
    if (!CREATE_FIELDS.has(field)) return sendJson(res, 400, bad(`Unknown parameter: '${field}'.`, field, 'unknown_parameter'));
  const { input_file_id: inputFileId, endpoint, completion_window: window, metadata } = body;
  if (typeof inputFileId !== 'string')
    return sendJson(res, 400, bad("Missing required parameter: 'input_file_id'.", 'input_file_id', 'missing_required_parameter'));
  if (typeof endpoint !== 'string')
    return sendJson(res, 400, bad("Missing required parameter: 'endpoint'.", 'endpoint', 'missing_required_parameter'));
  if (!(BATCH_ENDPOINTS as readonly string[]).includes(endpoint)) {
    return sendJson(
      res,
      400,
      bad(
        `Invalid value for 'endpoint': '${endpoint}'. Supported values are: ${BATCH_ENDPOINTS.map((e) => `'${e}'`).join(', ')}.`,
        'endpoint',
        'invalid_value',
      ),
    );
  }
  if (window !== '24h')
    return sendJson(
      res,
      400,
      bad(`Invalid value for 'completion_window': '${String(window)}'. Supported values are: '24h'.`, 'completion_window', 'invalid_value'),
    );
  if (
    metadata !== undefined &&
    metadata !== null &&
    (!isRecord(metadata) || Object.values(metadata).some((value) => typeof value !== 'string') || Object.keys(metadata).length > 16)
  ) {
    return sendJson(res, 400, bad("Invalid 'metadata': at most 16 string values.", 'metadata', 'invalid_type'));
  }
  const file = getFile(inputFileId);
  if (!file) return sendJson(res, 404, openaiError(`No such File object: ${inputFileId}`, 'invalid_request_error', 'input_file_id', null));
  if (file.purpose !== 'batch')
    return sendJson(
      res,
      400,
      bad(
        `Invalid 'input_file_id': file ${inputFileId} has purpose '${file.purpose}', expected 'batch'.`,
        'input_file_id',
        'invalid_value',
      ),
    );
  const input = readInput(file.content.toString('utf8'), endpoint);
  const directives = batchDirectives(input.lines[0] ? lineModel(input.lines[0].body) : undefined, req.headers);
  if (directives.createStatus !== undefined)
    return sendJson(res, directives.createStatus, openaiErrorForStatus(directives.createStatus, 'batch'));
  const errors = directives.fail
    ? [{ code: 'invalid_request', message: 'The batch was refused by the provider (simulated).', param: null, line: null }, ...input.errors]
    : input.errors;
  const batch: OpenAiBatch = {
    id: `batch_${randomId(24)}`,
    endpoint,
    inputFileId,
    metadata: isRecord(metadata) ? (metadata as Record<string, string>) : null,
    createdAt: nowSeconds(),
    model: input.model,
    errors,
    validatingUntil: Date.now() + directives.delayMs,
  };
  if (errors.length === 0) {
    const auth = req.headers.authorization!;
    batch.job = new BatchJob(input.lines, selfBaseUrl(req), { authorization: auth }, directives);
  }
  batches.set(batch.id, batch);
  sendJson(res, 200, view(batch));
}

/** GET /v1/batches, GET /v1/batches/{id}, POST /v1/batches/{id}/cancel */
export function handleBatchRoute(req: IncomingMessage, res: ServerResponse, method: string, rest: string, query: URLSearchParams): void {
  req.resume();
  if (!authorized(req, res)) return;
  if (rest === '' && method === 'GET') {
    const limit = Math.min(Math.max(Number(query.get('limit') ?? 20) || 20, 1), 100);
    const all = [...batches.values()].reverse();
    const after = query.get('after');
    const start = after ? all.findIndex((batch) => batch.id === after) + 1 : 0;
    const page = all.slice(start, start + limit).map(view);
    return sendJson(res, 200, {
      object: 'list',
      data: page,
      first_id: (page[0]?.id as string | undefined) ?? null,
      last_id: (page.at(-1)?.id as string | undefined) ?? null,
      has_more: start + limit < all.length,
    });
  }
  const [id = '', sub] = rest.slice(1).split('/');
  const batch = batches.get(id);
  if (!batch) return sendJson(res, 404, openaiError(`No batch found with id '${id}'.`, 'invalid_request_error', null, null));
  if (method === 'GET' && sub === undefined) return sendJson(res, 200, view(batch));
  if (method === 'POST' && sub === 'cancel') {
    const status = statusOf(batch);
    if (!['validating', 'in_progress'].includes(status)) return sendJson(res, 409, bad(`Cannot cancel a batch with status '${status}'.`));
    batch.cancellingAt = nowSeconds();
    batch.job?.cancel();
    return sendJson(res, 200, view(batch));
  }
  sendJson(res, 404, openaiError(`Invalid URL (${method} /v1/batches${rest})`, 'invalid_request_error', null, 'unknown_url'));
}
