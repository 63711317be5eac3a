import { JSONParser } from '@streamparser/json';
import type { Readable } from 'node:stream';
import {
  BATCH_APPEND_MAX_LINES,
  BATCH_COMPLETION_WINDOW,
  BATCH_ENDPOINTS,
  CUSTOM_ID_MAX_LENGTH,
  FILE_ID_PATTERN,
  type BatchEndpoint,
  type BatchView,
  type Principal,
  BatchesAbort,
  BatchesAppend,
  BatchesCreate,
  BatchesSubmit,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type { RpcClient } from '@gw/messaging';
import type { BatchLimits } from './batch-limits.js';
import { checkJsonBody } from '../input/json-body.js';
import { validateLineBody } from './batch-line-validator.js';
import { asBatchServiceError } from './batch-service-error.js';
import { inputFileLines } from './input-file-lines.js';

/** A chunk of lines goes to the batch service at about this size (far below NATS' 1 MB). */
const APPEND_CHUNK_BYTES = 512 * 1024;
const HEADER_FIELDS = new Set(['endpoint', 'model', 'completion_window', 'provider', 'metadata', 'input_file_id']);
const ORDER_RULE =
  '`endpoint` and `model` (and `provider` and `metadata` when given) must come before `requests` in the body: the body is read as a stream, and each line is validated against them as it arrives';

interface Header {
  endpoint?: unknown;
  model?: unknown;
  completion_window?: unknown;
  provider?: unknown;
  metadata?: unknown;
  input_file_id?: unknown;
}

interface PendingLine {
  index: number;
  custom_id: string;
  body: Record<string, unknown>;
}

/**
 * Reads a POST /v1/batches body as a stream with a streaming JSON parser: the
 * header fields first, then each element of `requests` as it completes, so a 100 MB batch is
 * never one string nor one object in memory. Lines are validated one by one and sent to the
 * batch service in chunks (awaited before reading on: the client is slowed, not buffered). The
 * batch stays invisible until submitted; any refusal drops what was sent.
 */
export class BatchUploader {
  private readonly header: Header = {};
  private batchId: string | undefined;
  private creating: Promise<void> | undefined;
  private readonly customIds = new Set<string>();
  private chunk: PendingLine[] = [];
  private chunkBytes = 0;
  private lines = 0;
  private bytes = 0;
  private sawRequests = false;
  private failure: GatewayError | undefined;
  /** Lines parsed but not yet validated (validation is async; the parser is not). */
  private queue: Array<{ index: number; value: unknown }> = [];
  /** How refusals name a line: its place in `requests`, or its line in the input file. */
  private lineName = (index: number): string => `requests[${index}]`;

  constructor(
    private readonly rpc: RpcClient,
    private readonly principal: Principal,
    private readonly limits: BatchLimits,
  ) {}

  async upload(stream: Readable): Promise<BatchView> {
    try {
      await this.read(stream);
      await this.drain();
      if (this.header.input_file_id !== undefined) await this.readInputFile(this.header.input_file_id);
      this.checkHeader(true);
      if (this.header.input_file_id !== undefined && this.lines === 0)
        throw GatewayError.badRequest('input_file_id: the file holds no requests', { param: 'input_file_id' });
      if (!this.sawRequests || this.lines === 0)
        throw GatewayError.badRequest('requests: must hold at least one request', { param: 'requests' });
      await this.flush();
      return await this.rpc.send(BatchesSubmit, {
        principal: this.principal,
        batchId: this.batchId!,
        total: this.lines,
      });
    } catch (error) {
      if (this.batchId) await this.rpc.send(BatchesAbort, { principal: this.principal, batchId: this.batchId }).catch(() => undefined);
      throw asBatchServiceError(error);
    }
  }

  private async read(stream: Readable): Promise<void> {
    const parser = new JSONParser({ paths: ['$.*', '$.requests.*'], keepStack: false });
    parser.onValue = ({ value, key, parent, stack }) => {
      if (this.failure) return;
      if (stack.length === 2) {
        this.sawRequests = true;
        this.queue.push({ index: key as number, value });
        // Dropped from the parser's `requests` array at once: only the lines not yet sent stay in memory.
        delete (parent as unknown[])[key as number];
        return;
      }
      if (stack.length !== 1) return;
      if (key === 'requests') {
        if (!Array.isArray(value))
          this.failure = GatewayError.badRequest('requests: must be an array of {custom_id, body}', { param: 'requests' });
        return;
      }
      if (!HEADER_FIELDS.has(String(key))) {
        this.failure = GatewayError.badRequest(`${String(key)}: property ${String(key)} should not exist`, { param: String(key) });
        return;
      }
      if (this.sawRequests)
        this.failure = GatewayError.badRequest(`${String(key)}: comes after requests. ${ORDER_RULE}`, { param: String(key) });
      // Depth, NUL and lone surrogates before anything serialises or stores the field.
      this.failure ??= checkJsonBody(value, undefined, String(key));
      (this.header as Record<string, unknown>)[String(key)] = value;
    };
    let parseError: Error | undefined;
    parser.onError = (error) => (parseError ??= error);
    for await (const piece of stream) {
      const buffer = piece as Buffer;
      this.bytes += buffer.length;
      if (this.bytes > this.limits.maxBytes)
        throw tooLarge(`The batch body is larger than ${this.limits.maxBytes} bytes (BATCH_MAX_BYTES)`, 'max_bytes', this.limits.maxBytes);
      try {
        parser.write(buffer);
      } catch (error) {
        parseError ??= error as Error;
      }
      if (parseError) throw GatewayError.badRequest(`Request body is not valid JSON: ${parseError.message}`);
      if (this.failure) throw this.failure;
      await this.drain();
    }
    if (this.bytes === 0) throw GatewayError.badRequest('Request body is required');
    if (!parser.isEnded) throw GatewayError.badRequest('Request body is not valid JSON: it ended early');
  }

  /**
   * OpenAI's batch flow: the lines of an uploaded file, validated as inline ones. The batch's
   * model is the first line's (OpenAI's rule: one model a batch), unless `model` was given.
   */
  private async readInputFile(fileId: unknown): Promise<void> {
    if (this.sawRequests)
      throw GatewayError.badRequest('input_file_id: give requests or input_file_id, not both', { param: 'input_file_id' });
    if (typeof fileId !== 'string' || !FILE_ID_PATTERN.test(fileId))
      throw GatewayError.badRequest('input_file_id: must be the id of a file uploaded with purpose "batch"', { param: 'input_file_id' });
    const { endpoint } = this.header;
    if (typeof endpoint !== 'string' || !(BATCH_ENDPOINTS as readonly string[]).includes(endpoint))
      throw GatewayError.badRequest(`endpoint: must be one of ${BATCH_ENDPOINTS.join(', ')}`, { param: 'endpoint' });
    this.lineName = (index) => `line ${index + 1}`;
    for await (const line of inputFileLines(this.rpc, this.principal, fileId, endpoint, this.limits.maxLineBytes)) {
      if (this.header.model === undefined) {
        const model = (line.value.body as { model?: unknown } | null)?.model;
        if (typeof model !== 'string')
          throw GatewayError.badRequest(`line ${line.index + 1}.body.model: is required`, { param: `line ${line.index + 1}.body.model` });
        this.header.model = model;
      }
      this.sawRequests = true;
      this.queue.push(line);
      await this.drain();
    }
  }

  /** Validates the queued lines and sends full chunks. */
  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const { index, value } = this.queue.shift()!;
      const line = await this.validateLine(index, value);
      this.lines++;
      if (this.lines > this.limits.maxLines)
        throw tooLarge(`A batch holds at most ${this.limits.maxLines} requests (BATCH_MAX_LINES)`, 'max_lines', this.limits.maxLines);
      const size = Buffer.byteLength(JSON.stringify(line));
      this.chunk.push(line);
      this.chunkBytes += size;
      if (this.chunk.length >= BATCH_APPEND_MAX_LINES || this.chunkBytes >= APPEND_CHUNK_BYTES) await this.flush();
    }
  }

  private async validateLine(index: number, value: unknown): Promise<PendingLine> {
    const { endpoint, model } = this.checkHeader(false);
    const at = this.lineName(index);
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      throw GatewayError.badRequest(`${at}: must be an object {custom_id, body}`, { param: at, index });
    const { custom_id: customId, body, ...rest } = value as Record<string, unknown>;
    const unknown = Object.keys(rest)[0];
    if (unknown !== undefined)
      throw GatewayError.badRequest(`${at}.${unknown}: property ${unknown} should not exist (a request has custom_id and body)`, {
        param: `${at}.${unknown}`,
        index,
      });
    const customIdRefusal = typeof customId === 'string' ? checkJsonBody(customId, undefined, `${at}.custom_id`) : undefined;
    if (customIdRefusal) throw new GatewayError(400, customIdRefusal.message, { metadata: { ...customIdRefusal.metadata, index } });
    if (typeof customId !== 'string' || customId.length === 0 || customId.length > CUSTOM_ID_MAX_LENGTH) {
      throw GatewayError.badRequest(`${at}.custom_id: must be a non-empty string of at most ${CUSTOM_ID_MAX_LENGTH} characters`, {
        param: `${at}.custom_id`,
        index,
      });
    }
    if (this.customIds.has(customId))
      throw GatewayError.badRequest(
        `${at}.custom_id: "${customId}" is used by an earlier request: custom_id must be unique within the batch`,
        { param: `${at}.custom_id`, index },
      );
    this.customIds.add(customId);
    // Walked before anything serialises it: JSON.stringify recurses, a deep line overflowed the stack.
    const refusal = checkJsonBody(body, undefined, `${at}.body`);
    if (refusal) {
      const message = refusal.message.startsWith(at) ? refusal.message : `${at}.body: ${refusal.message}`;
      throw new GatewayError(refusal.status, message, { metadata: { param: `${at}.body`, ...refusal.metadata, index } });
    }
    const lineBytes = Buffer.byteLength(JSON.stringify(value));
    if (lineBytes > this.limits.maxLineBytes) {
      throw tooLarge(
        `${at}: the request is ${lineBytes} bytes, more than ${this.limits.maxLineBytes} (BATCH_MAX_LINE_BYTES)`,
        'max_line_bytes',
        this.limits.maxLineBytes,
        index,
      );
    }
    const validBody = await validateLineBody(endpoint, model, index, body, `${at}.body`);
    await this.created();
    return { index, custom_id: customId, body: validBody };
  }

  /** The header fields, checked; `final` once the whole body is read. */
  private checkHeader(final: boolean): { endpoint: BatchEndpoint; model: string } {
    const { endpoint, model } = this.header;
    if (endpoint === undefined || model === undefined) {
      if (!final)
        throw GatewayError.badRequest(`${endpoint === undefined ? 'endpoint' : 'model'}: missing before requests. ${ORDER_RULE}`, {
          param: endpoint === undefined ? 'endpoint' : 'model',
        });
      throw GatewayError.badRequest(`${endpoint === undefined ? 'endpoint' : 'model'}: is required`, {
        param: endpoint === undefined ? 'endpoint' : 'model',
      });
    }
    if (typeof endpoint !== 'string' || !(BATCH_ENDPOINTS as readonly string[]).includes(endpoint)) {
      throw GatewayError.badRequest(`endpoint: must be one of ${BATCH_ENDPOINTS.join(', ')}`, { param: 'endpoint' });
    }
    if (typeof model !== 'string' || model.length === 0 || model.length > 256 || model.includes('\u0000'))
      throw GatewayError.badRequest('model: must be a non-empty string', { param: 'model' });
    const window = this.header.completion_window;
    if (final && window === undefined)
      throw GatewayError.badRequest(`completion_window: is required (only "${BATCH_COMPLETION_WINDOW}")`, { param: 'completion_window' });
    if (window !== undefined && window !== BATCH_COMPLETION_WINDOW)
      throw GatewayError.badRequest(`completion_window: must be "${BATCH_COMPLETION_WINDOW}"`, { param: 'completion_window' });
    return { endpoint: endpoint as BatchEndpoint, model };
  }

  /** Opens the batch at the first valid line (the header is known by then). */
  private created(): Promise<void> {
    this.creating ??= (async () => {
      const { endpoint, model } = this.checkHeader(false);
      const { provider, metadata, input_file_id: inputFileId } = this.header;
      if (provider !== undefined && (typeof provider !== 'object' || provider === null || Array.isArray(provider)))
        throw GatewayError.badRequest('provider: must be an object', { param: 'provider' });
      checkMetadata(metadata);
      const reply = await this.rpc.send(BatchesCreate, {
        principal: this.principal,
        endpoint,
        model,
        completionWindow: BATCH_COMPLETION_WINDOW,
        ...(provider !== undefined ? { provider: provider as Record<string, unknown> } : {}),
        ...(metadata !== undefined && metadata !== null ? { metadata: metadata as Record<string, string> } : {}),
        ...(typeof inputFileId === 'string' ? { inputFileId } : {}),
      });
      this.batchId = reply.id;
    })();
    return this.creating;
  }

  private async flush(): Promise<void> {
    if (this.chunk.length === 0) return;
    const lines = this.chunk;
    this.chunk = [];
    this.chunkBytes = 0;
    await this.rpc.send(BatchesAppend, { principal: this.principal, batchId: this.batchId!, lines });
  }
}

/** Spec §8: at most 16 pairs, keys of 64 characters, values of 512. */
function checkMetadata(metadata: unknown): void {
  if (metadata === undefined || metadata === null) return;
  if (typeof metadata !== 'object' || Array.isArray(metadata))
    throw GatewayError.badRequest('metadata: must be an object of strings', { param: 'metadata' });
  const entries = Object.entries(metadata);
  if (entries.length > 16) throw GatewayError.badRequest('metadata: at most 16 pairs', { param: 'metadata' });
  for (const [key, value] of entries) {
    if (key.length > 64 || key.includes('\u0000'))
      throw GatewayError.badRequest(`metadata.${key.slice(0, 64)}: keys are at most 64 characters`, { param: 'metadata' });
    if (typeof value !== 'string' || value.length > 512 || value.includes('\u0000'))
      throw GatewayError.badRequest(`metadata.${key}: values are strings of at most 512 characters`, { param: `metadata.${key}` });
  }
}

function tooLarge(message: string, limit: string, value: number, index?: number): GatewayError {
  return new GatewayError(413, message, {
    errorType: 'payload_too_large',
    metadata: { limit, max: value, ...(index !== undefined ? { index } : {}) },
  });
}
