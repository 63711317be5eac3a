import type { Multipart } from '@fastify/multipart';
import {
  FILE_PART_BYTES,
  FILE_PURPOSES,
  FILENAME_MAX_LENGTH,
  FilesAbort,
  FilesAppend,
  FilesComplete,
  FilesCreate,
  type FileView,
  type Principal,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import type { RpcClient } from '@gw/messaging';
import { asBatchServiceError } from '../batches/batch-service-error.js';

/**
 * Reads a POST /v1/files form as a stream: its `file` part goes to the batch service in parts
 * of FILE_PART_BYTES, each awaited before reading on (the client is slowed, never buffered).
 * The file stays invisible until complete; any refusal (a bad purpose after the file, too
 * large, the client gone) drops what was stored.
 */
export class FileUploader {
  private fileId: string | undefined;
  private purpose: string | undefined;
  private parts = 0;
  private bytes = 0;

  constructor(
    private readonly rpc: RpcClient,
    private readonly principal: Principal,
    private readonly maxBytes: number,
  ) {}

  async upload(form: AsyncIterableIterator<Multipart>): Promise<FileView> {
    try {
      for await (const part of form) {
        if (part.type === 'field') this.field(part.fieldname, part.value);
        else if (part.fieldname !== 'file')
          throw GatewayError.badRequest(`${part.fieldname}: unknown form field (the form has file and purpose)`, { param: part.fieldname });
        else await this.store(part.filename, part.file);
      }
      if (this.fileId === undefined) throw GatewayError.badRequest('file: is required', { param: 'file' });
      if (this.purpose === undefined)
        throw GatewayError.badRequest(`purpose: is required ("${FILE_PURPOSES.join('", "')}")`, { param: 'purpose' });
      if (this.bytes === 0) throw GatewayError.badRequest('file: is empty', { param: 'file' });
      return await this.rpc.send(FilesComplete, {
        principal: this.principal,
        fileId: this.fileId,
        purpose: this.purpose as (typeof FILE_PURPOSES)[number],
        parts: this.parts,
        bytes: this.bytes,
      });
    } catch (error) {
      if (this.fileId) await this.rpc.send(FilesAbort, { principal: this.principal, fileId: this.fileId }).catch(() => undefined);
      throw asBatchServiceError(formError(error));
    }
  }

  private field(name: string, value: unknown): void {
    if (name !== 'purpose') throw GatewayError.badRequest(`${name}: is not supported (the form has file and purpose)`, { param: name });
    if (this.purpose !== undefined) throw GatewayError.badRequest('purpose: give it once', { param: 'purpose' });
    if (!(FILE_PURPOSES as readonly unknown[]).includes(value))
      throw GatewayError.badRequest(
        `purpose: ${JSON.stringify(value)} is not supported: files here are batch input files (purpose "${FILE_PURPOSES.join('", "')}")`,
        { param: 'purpose' },
      );
    this.purpose = value as string;
  }

  private async store(filename: string, file: AsyncIterable<Buffer>): Promise<void> {
    if (this.fileId !== undefined) throw GatewayError.badRequest('file: give one file', { param: 'file' });
    const name = filename || 'upload.jsonl';
    if (name.length > FILENAME_MAX_LENGTH || name.includes('\u0000'))
      throw GatewayError.badRequest(`file: the filename must be at most ${FILENAME_MAX_LENGTH} characters, without NUL`, { param: 'file' });
    this.fileId = (await this.rpc.send(FilesCreate, { principal: this.principal, filename: name })).id;
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    for await (const piece of file) {
      this.bytes += piece.length;
      if (this.bytes > this.maxBytes) throw tooLarge(this.maxBytes);
      pending.push(piece);
      pendingBytes += piece.length;
      while (pendingBytes >= FILE_PART_BYTES) {
        const whole = Buffer.concat(pending);
        await this.send(whole.subarray(0, FILE_PART_BYTES));
        pending = [whole.subarray(FILE_PART_BYTES)];
        pendingBytes = pending[0]!.length;
      }
    }
    if (pendingBytes > 0) await this.send(Buffer.concat(pending));
  }

  private async send(data: Buffer): Promise<void> {
    await this.rpc.send(FilesAppend, { principal: this.principal, fileId: this.fileId!, part: this.parts, data: data.toString('base64') });
    this.parts++;
  }
}

function tooLarge(max: number): GatewayError {
  return new GatewayError(413, `The file is larger than ${max} bytes (FILES_MAX_BYTES)`, {
    errorType: 'payload_too_large',
    metadata: { limit: 'max_bytes', max },
  });
}

/** @fastify/multipart's own refusals (a malformed form, too many parts) in the envelope. */
function formError(error: unknown): unknown {
  if (error instanceof GatewayError || !(error instanceof Error)) return error;
  const status = (error as { statusCode?: number }).statusCode;
  if (status === undefined || status < 400 || status >= 500) return error;
  return new GatewayError(status, `The form could not be read: ${error.message}`);
}
