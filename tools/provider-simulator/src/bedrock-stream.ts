import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { EventFrame } from './bedrock-render.ts';
import { cutConnection, sleep } from './http.ts';
import { cutIndex, type Frame } from './sse.ts';

export interface EventStreamOptions {
  chunkDelay: number;
  /** destroy the connection after this many content frames */
  cut?: number;
  /** send `errorFrame` after this many content frames, then end */
  errorAfter?: number;
  errorFrame: EventFrame;
  headers?: OutgoingHttpHeaders;
}

function write(res: ServerResponse, bytes: Uint8Array): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) resolve();
    else res.write(bytes, () => resolve());
  });
}

/** Sends `application/vnd.amazon.eventstream` frames: head, frames (with optional delay), then end, cut or exception. */
export async function sendEventStream(res: ServerResponse, frames: EventFrame[], opts: EventStreamOptions): Promise<void> {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', ...opts.headers });
  res.flushHeaders();
  const stopAt = opts.cut ?? opts.errorAfter;
  const last =
    stopAt === undefined
      ? frames.length - 1
      : cutIndex(
          frames.map((f): Frame => ({ data: '', content: f.content })),
          stopAt,
        );
  for (let i = 0; i <= last; i++) {
    if (i > 0) await sleep(opts.chunkDelay);
    if (res.destroyed) return;
    await write(res, frames[i]!.bytes);
  }
  if (opts.cut !== undefined) return cutConnection(res);
  if (opts.errorAfter !== undefined) await write(res, opts.errorFrame.bytes);
  if (!res.destroyed) res.end();
}
