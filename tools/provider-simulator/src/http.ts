import { randomBytes } from 'node:crypto';
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';

export const MAX_BODY_BYTES = 10 * 1024 * 1024;
/** Batch uploads (a Files API upload, an Anthropic message batch): OpenAI takes batch files up to 200 MB. */
export const MAX_BATCH_BODY_BYTES = 200 * 1024 * 1024;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: OutgoingHttpHeaders): void {
  if (res.headersSent || res.destroyed) return;
  const data = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(data),
    ...headers,
  });
  res.end(data);
}

export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}

export type BodyResult = { ok: true; body: Buffer } | { ok: false; tooLarge: true } | { ok: false; tooLarge: false };

/**
 * Reads the request body up to `maxBytes` (MAX_BODY_BYTES by default). An oversized body is drained (so the client
 * can read the 413) and reported as `tooLarge`; an aborted request as `tooLarge: false`.
 */
export function readBody(req: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<BodyResult> {
  /** Past this many bytes an oversized body is no longer drained: the socket is destroyed. */
  const maxDrain = 4 * maxBytes;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (r: BodyResult) => {
      if (!done) {
        done = true;
        resolve(r);
      }
    };
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
      else if (size > maxDrain) {
        req.destroy();
        finish({ ok: false, tooLarge: false });
      }
    });
    req.on('end', () => {
      if (size > maxBytes) finish({ ok: false, tooLarge: true });
      else finish({ ok: true, body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) });
    });
    req.on('error', () => finish({ ok: false, tooLarge: false }));
    req.on('aborted', () => finish({ ok: false, tooLarge: false }));
  });
}

/** A random id suffix of `len` base-62-ish characters. */
export function randomId(len = 24): string {
  return randomBytes(Math.ceil((len * 3) / 4) + 2)
    .toString('base64url')
    .replace(/[-_]/g, 'x')
    .slice(0, len);
}

export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** Closes the connection mid-response once everything already written has been flushed. */
export function cutConnection(res: ServerResponse): void {
  const socket = res.socket;
  if (!socket || socket.destroyed) return;
  socket.end(() => socket.destroy());
}

/** Non-streaming `cut`: sends a 200 head announcing a body, then closes the connection without it. */
export function cutBeforeBody(res: ServerResponse, headers?: OutgoingHttpHeaders): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1024', ...headers });
  res.flushHeaders();
  cutConnection(res);
}
