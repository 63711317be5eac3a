import { FilesContent, type FileContentPart, type Principal } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type { RpcClient } from '@gw/messaging';
import { StringDecoder } from 'node:string_decoder';
import { asBatchServiceError } from './batch-service-error.js';

const LINE_FIELDS = new Set(['custom_id', 'method', 'url', 'body']);
/** Room for `method` and `url` around a line's `{custom_id, body}`, which BATCH_MAX_LINE_BYTES bounds. */
const LINE_ENVELOPE_CHARS = 1024;

export interface InputFileLine {
  index: number;
  value: { custom_id: unknown; body: unknown };
}

/**
 * The lines of an uploaded batch input file (OpenAI's JSONL, `{custom_id, method, url, body}`
 * a line), read part by part from the batch service: one part and one line at a time in
 * memory. `method` must be POST and `url` the batch's endpoint; each refusal is a 400 naming
 * the line (1-based, as an editor shows it) and the field.
 */
export async function* inputFileLines(
  rpc: RpcClient,
  principal: Principal,
  fileId: string,
  endpoint: string,
  maxLineBytes: number,
): AsyncGenerator<InputFileLine> {
  const decoder = new StringDecoder('utf8');
  let rest = '';
  let number = 0;
  // Blank lines (a trailing newline) are skipped; a line's index is its number less one.
  // A line is held whole only up to its limit: a file without newlines is refused, not gathered.
  const tooLong = (text: string, at: number) => {
    if (text.length <= maxLineBytes + LINE_ENVELOPE_CHARS) return;
    throw new GatewayError(413, `line ${at}: longer than ${maxLineBytes} bytes (BATCH_MAX_LINE_BYTES)`, {
      errorType: 'payload_too_large',
      metadata: { limit: 'max_line_bytes', max: maxLineBytes, param: `line ${at}`, line: at },
    });
  };
  const line = (text: string): InputFileLine | undefined => {
    number++;
    tooLong(text, number);
    if (text.trim() === '') return undefined;
    return { index: number - 1, value: fileLine(text, number, endpoint) };
  };
  for (let part: number | null = 0; part !== null;) {
    const page: FileContentPart = await rpc.send(FilesContent, { principal, fileId, part }).catch((error: unknown) => {
      throw inputFileError(error, fileId);
    });
    const lines = (rest + decoder.write(Buffer.from(page.data, 'base64'))).split('\n');
    rest = lines.pop()!;
    for (const text of lines) {
      const parsed = line(text);
      if (parsed) yield parsed;
    }
    tooLong(rest, number + 1);
    part = page.nextPart;
  }
  const last = line(rest + decoder.end());
  if (last) yield last;
}

function fileLine(text: string, number: number, endpoint: string): InputFileLine['value'] {
  const at = `line ${number}`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw GatewayError.badRequest(`${at}: not valid JSON (${(error as Error).message})`, { param: at, line: number });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw GatewayError.badRequest(`${at}: must be an object {custom_id, method, url, body}`, { param: at, line: number });
  const record = value as Record<string, unknown>;
  const unknown = Object.keys(record).find((key) => !LINE_FIELDS.has(key));
  if (unknown !== undefined)
    throw GatewayError.badRequest(`${at}.${unknown}: property ${unknown} should not exist (a line has custom_id, method, url and body)`, {
      param: `${at}.${unknown}`,
      line: number,
    });
  if (record.method !== 'POST') throw GatewayError.badRequest(`${at}.method: must be "POST"`, { param: `${at}.method`, line: number });
  if (record.url !== endpoint)
    throw GatewayError.badRequest(`${at}.url: must be the batch's endpoint "${endpoint}" (got ${JSON.stringify(record.url)})`, {
      param: `${at}.url`,
      line: number,
    });
  return { custom_id: record.custom_id, body: record.body };
}

/** A file that is not the caller's is named as the field that points at it. */
function inputFileError(error: unknown, fileId: string): unknown {
  if (error instanceof GatewayError && error.status === 404)
    return new GatewayError(404, `input_file_id: no file ${fileId} (upload it with POST /v1/files, purpose "batch")`, {
      metadata: { param: 'input_file_id' },
    });
  return asBatchServiceError(error);
}
