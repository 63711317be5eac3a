import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { cutConnection, sleep } from './http.ts';
import { streamStatsFor, type StreamStats } from './stream-stats.ts';

/** One server-sent event, already serialised; `content` marks frames that carry generated content. */
export interface Frame {
  data: string;
  content: boolean;
}

/** `data: <json>\n\n` (OpenAI style). */
export function dataFrame(payload: unknown, content = false): Frame {
  return { data: `data: ${JSON.stringify(payload)}\n\n`, content };
}

/** `event: <type>\ndata: <json>\n\n` (Anthropic style). */
export function eventFrame(event: string, payload: unknown, content = false): Frame {
  return { data: `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`, content };
}

export interface StreamOptions {
  chunkDelay: number;
  /** destroy the connection after this many content frames */
  cut?: number;
  /** send `errorFrame` after this many content frames, then end the response */
  errorAfter?: number;
  errorFrame?: Frame;
  headers?: OutgoingHttpHeaders;
  /** Counts this stream under that key (GET /sim/streams?key=...). */
  statsKey?: string;
}

/**
 * Index of the last frame to send before a cut after `n` content frames. With fewer content
 * frames than `n`, the cut comes right after the last one (so a cut stream never completes).
 */
export function cutIndex(frames: readonly Frame[], n: number): number {
  let seen = 0;
  let lastContent = -1;
  for (let i = 0; i < frames.length; i++) {
    if (!frames[i]!.content) continue;
    if (n === 0) return i - 1;
    lastContent = i;
    if (++seen === n) return i;
  }
  return lastContent >= 0 ? lastContent : Math.min(0, frames.length - 1);
}

function write(res: ServerResponse, data: string): Promise<void> {
  return new Promise((resolve) => {
    if (res.destroyed) resolve();
    else res.write(data, () => resolve());
  });
}

/** Sends an SSE response: head, frames (with optional delay), then end, cut or error. */
export async function sendStream(res: ServerResponse, frames: Frame[], opts: StreamOptions): Promise<void> {
  if (res.destroyed || res.headersSent) return;
  const stats: StreamStats | undefined = opts.statsKey === undefined ? undefined : streamStatsFor(opts.statsKey);
  if (stats) stats.started++;
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...opts.headers });
  const stopAt = opts.cut ?? opts.errorAfter;
  const last = stopAt === undefined ? frames.length - 1 : cutIndex(frames, stopAt);
  const body = last === frames.length - 1 ? frames : frames.slice(0, last + 1);
  const tail = opts.cut === undefined && opts.errorAfter !== undefined && opts.errorFrame ? opts.errorFrame.data : '';

  if (opts.chunkDelay <= 0) {
    const all = body.map((f) => f.data).join('') + tail;
    if (stats) {
      stats.framesSent += body.length;
      stats.finished++;
    }
    if (opts.cut !== undefined) {
      if (all) await write(res, all);
      cutConnection(res);
    } else res.end(all);
    return;
  }
  res.flushHeaders();
  for (let i = 0; i < body.length; i++) {
    if (i > 0) await sleep(opts.chunkDelay);
    if (res.destroyed) {
      if (stats) stats.abandoned++;
      return;
    }
    await write(res, body[i]!.data);
    if (stats) stats.framesSent++;
  }
  if (stats) stats.finished++;
  if (opts.cut !== undefined) {
    cutConnection(res);
    return;
  }
  if (tail) await sleep(opts.chunkDelay);
  if (!res.destroyed) res.end(tail);
}
