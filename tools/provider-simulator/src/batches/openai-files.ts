import type { IncomingMessage, ServerResponse } from 'node:http';
import { openaiError } from '../errors.ts';
import { nowSeconds, randomId, sendJson } from '../http.ts';
import { checkOpenAIAuth } from '../openai.ts';

/** OpenAI's Files API, as far as batches use it: upload (multipart), retrieve, content, list, delete. */

export const FILE_PURPOSES = ['assistants', 'batch', 'fine-tune', 'vision', 'user_data', 'evals'] as const;
/** Batch input and output files expire after 30 days unless `expires_after` says otherwise. */
const BATCH_FILE_TTL_SECONDS = 30 * 24 * 3600;

export interface StoredFile {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  expires_at: number | null;
  filename: string;
  purpose: string;
  status: 'processed';
  status_details: null;
  content: Buffer;
}

const files = new Map<string, StoredFile>();

export function getFile(id: string): StoredFile | undefined {
  return files.get(id);
}

/** A file the simulator writes itself (a batch's output or error file). */
export function storeOutputFile(filename: string, content: string): StoredFile {
  const created = nowSeconds();
  const file: StoredFile = {
    id: `file-${randomId(22)}`,
    object: 'file',
    bytes: Buffer.byteLength(content),
    created_at: created,
    expires_at: created + BATCH_FILE_TTL_SECONDS,
    filename,
    purpose: 'batch_output',
    status: 'processed',
    status_details: null,
    content: Buffer.from(content),
  };
  files.set(file.id, file);
  return file;
}

export function fileView(file: StoredFile): Omit<StoredFile, 'content'> {
  const { content: _content, ...view } = file;
  return view;
}

function notFound(res: ServerResponse, id: string): void {
  sendJson(res, 404, openaiError(`No such File object: ${id}`, 'invalid_request_error', 'id', null));
}

function authorized(req: IncomingMessage, res: ServerResponse): boolean {
  const error = checkOpenAIAuth(req);
  if (error) sendJson(res, 401, error);
  return !error;
}

/** POST /v1/files: multipart/form-data with `file` and `purpose` (and optional `expires_after[anchor|seconds]`). */
export async function handleUploadFile(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
  if (!authorized(req, res)) return;
  const contentType = req.headers['content-type'] ?? '';
  if (!contentType.toLowerCase().startsWith('multipart/form-data')) {
    return sendJson(
      res,
      400,
      openaiError('Invalid Content-Type header (expected multipart/form-data).', 'invalid_request_error', null, null),
    );
  }
  let form: FormData;
  try {
    form = await new Request('http://simulator/v1/files', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: new Uint8Array(raw),
    }).formData();
  } catch {
    return sendJson(res, 400, openaiError('Could not parse multipart form.', 'invalid_request_error', null, null));
  }
  const purpose = form.get('purpose');
  if (typeof purpose !== 'string')
    return sendJson(
      res,
      400,
      openaiError("Missing required parameter: 'purpose'.", 'invalid_request_error', 'purpose', 'missing_required_parameter'),
    );
  if (!(FILE_PURPOSES as readonly string[]).includes(purpose)) {
    return sendJson(
      res,
      400,
      openaiError(
        `Invalid value for 'purpose': '${purpose}'. Supported values are: ${FILE_PURPOSES.map((p) => `'${p}'`).join(', ')}.`,
        'invalid_request_error',
        'purpose',
        'invalid_value',
      ),
    );
  }
  const file = form.get('file');
  if (file === null || typeof file === 'string')
    return sendJson(
      res,
      400,
      openaiError("Missing required parameter: 'file'.", 'invalid_request_error', 'file', 'missing_required_parameter'),
    );
  const content = Buffer.from(await file.arrayBuffer());
  const filename = file.name || 'upload';
  if (purpose === 'batch' && !filename.endsWith('.jsonl')) {
    return sendJson(res, 400, openaiError('Invalid file format for Batch API. Must be .jsonl', 'invalid_request_error', null, null));
  }
  const seconds = Number(form.get('expires_after[seconds]') ?? NaN);
  const created = nowSeconds();
  const stored: StoredFile = {
    id: `file-${randomId(22)}`,
    object: 'file',
    bytes: content.length,
    created_at: created,
    expires_at: Number.isInteger(seconds) ? created + seconds : purpose === 'batch' ? created + BATCH_FILE_TTL_SECONDS : null,
    filename,
    purpose,
    status: 'processed',
    status_details: null,
    content,
  };
  files.set(stored.id, stored);
  sendJson(res, 200, fileView(stored));
}

/** GET /v1/files/{id}, GET /v1/files/{id}/content, DELETE /v1/files/{id}, GET /v1/files. */
export function handleFileRoute(req: IncomingMessage, res: ServerResponse, method: string, rest: string, query: URLSearchParams): void {
  req.resume();
  if (!authorized(req, res)) return;
  if (rest === '') {
    if (method !== 'GET') return sendJson(res, 405, openaiError(`Method ${method} not allowed.`, 'invalid_request_error', null, null));
    const purpose = query.get('purpose');
    const limit = Math.min(Math.max(Number(query.get('limit') ?? 10000) || 10000, 1), 10000);
    const data = [...files.values()].filter((file) => !purpose || file.purpose === purpose).reverse();
    const after = query.get('after');
    const start = after ? data.findIndex((file) => file.id === after) + 1 : 0;
    const page = data.slice(start, start + limit).map(fileView);
    return sendJson(res, 200, {
      object: 'list',
      data: page,
      first_id: page[0]?.id ?? null,
      last_id: page.at(-1)?.id ?? null,
      has_more: start + limit < data.length,
    });
  }
  const [id = '', sub] = rest.slice(1).split('/');
  const file = files.get(id);
  if (method === 'GET' && sub === 'content') {
    if (!file) return notFound(res, id);
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.content.length });
    res.end(file.content);
    return;
  }
  if (sub !== undefined)
    return sendJson(res, 404, openaiError(`Invalid URL (${method} /v1/files${rest})`, 'invalid_request_error', null, 'unknown_url'));
  if (method === 'GET') return file ? sendJson(res, 200, fileView(file)) : notFound(res, id);
  if (method === 'DELETE') {
    if (!file) return notFound(res, id);
    files.delete(id);
    return sendJson(res, 200, { id, object: 'file', deleted: true });
  }
  sendJson(res, 405, openaiError(`Method ${method} not allowed.`, 'invalid_request_error', null, null));
}
