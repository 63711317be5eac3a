import { request as httpRequest, type IncomingMessage } from 'node:http';
import { Pool } from 'undici';
import { SseTally } from './sse.ts';

/** A streamed chat completion to send: where, with which headers and body. */
export interface StreamTarget {
  name: string;
  label: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What one stream did, times in ms from just before the request was handed to undici. */
export interface StreamOutcome {
  status: number;
  /** First byte of the first `data:` line; undefined when none came. */
  firstDataMs: number | undefined;
  /** Whole body read (end or failure). */
  totalMs: number;
  /** `data:` events, `[DONE]` included. */
  events: number;
  done: boolean;
  /** Error chunks (mid-stream failures). */
  errorEvents: number;
  /** The first error chunk's start, if any. */
  firstError?: string;
  /** Transport failure (reset, timeout), if any. */
  failure?: string;
  /** The start of the body of an answer other than 200, to say why. */
  body?: string;
}

/** A stream that answered 200, ended with `[DONE]` and held no error chunk. */
export const complete = (outcome: StreamOutcome): boolean =>
  outcome.status === 200 && outcome.done && outcome.errorEvents === 0 && outcome.failure === undefined;

/** A small undici pool to one origin: `connections` sockets, one request each at a time. */
export function streamPool(target: StreamTarget, connections: number): Pool {
  // Long streams (the concurrency scenario) wait minutes between the head and the end.
  return new Pool(new URL(target.url).origin, {
    connections,
    pipelining: 1,
    headersTimeout: 30_000,
    bodyTimeout: 300_000,
    connectTimeout: 30_000,
  });
}

/**
 * Sends one streamed request on `pool` and reads the body to its end, counting events and
 * timing the first `data:` byte. Never throws for an HTTP or transport failure: it is in the
 * outcome, so a run can count it.
 */
export async function streamOnce(pool: Pool, target: StreamTarget, signal?: AbortSignal): Promise<StreamOutcome> {
  const { pathname, search } = new URL(target.url);
  const tally = new SseTally();
  const decoder = new TextDecoder();
  const start = performance.now();
  let firstDataMs: number | undefined;
  let status = 0;
  try {
    const response = await pool.request({ path: pathname + search, method: 'POST', headers: target.headers, body: target.body, signal });
    status = response.statusCode;
    if (status !== 200) {
      const text = (await response.body.text()).slice(0, 300);
      return { status, firstDataMs, totalMs: performance.now() - start, events: 0, done: false, errorEvents: 0, body: `${status} ${text}` };
    }
    for await (const piece of response.body) {
      if (tally.push(decoder.decode(piece as Buffer, { stream: true })) && firstDataMs === undefined)
        firstDataMs = performance.now() - start;
    }
    tally.push(decoder.decode());
  } catch (error) {
    return {
      status,
      firstDataMs,
      totalMs: performance.now() - start,
      events: tally.events,
      done: tally.done,
      errorEvents: tally.errors,
      failure: (error as Error).message,
      ...(tally.firstError ? { firstError: tally.firstError } : {}),
    };
  }
  return {
    status,
    firstDataMs,
    totalMs: performance.now() - start,
    events: tally.events,
    done: tally.done,
    errorEvents: tally.errors,
    ...(tally.firstError ? { firstError: tally.firstError } : {}),
  };
}

/** How a stalled stream turned out once its client read again. */
export type StalledEnd = 'complete' | 'cut' | 'still-running';

/**
 * A stream whose client reads the head and then nothing. It is sent with `node:http` on its own
 * socket and its response is paused: once the response's small buffer (16 KiB) is full, Node's
 * HTTP parser stops reading the socket (`readStop`), the kernel's receive buffer fills and TCP's
 * window closes, so the gateway's writes back up as they would for a real stalled client.
 * `bytesRead` says how much the client took off the socket meanwhile.
 */
export interface StalledStream {
  /** Status of the head (0 if none came). */
  status: Promise<number>;
  /** Bytes the client's socket had read (head included) when released; 0 before the head. */
  bytesRead(): number;
  /**
   * Reads what is left (up to `seconds`) and closes it: `complete` when it still ended with
   * [DONE], `cut` when the gateway had ended it (closed, or an error chunk such as
   * slow_consumer), `still-running` when it had not ended by then. A paused socket does not see
   * a close until it reads, so this is the only way to tell.
   */
  release(seconds?: number): Promise<StalledEnd>;
}

export function stallOnce(target: StreamTarget): StalledStream {
  const controller = new AbortController();
  const response = new Promise<IncomingMessage | undefined>((resolve) => {
    const request = httpRequest(
      target.url,
      {
        method: 'POST',
        headers: { ...target.headers, 'content-length': Buffer.byteLength(target.body) },
        agent: false,
        signal: controller.signal,
      },
      (answer) => {
        answer.pause();
        resolve(answer);
      },
    );
    request.on('error', () => resolve(undefined));
    request.end(target.body);
  });
  let answered: IncomingMessage | undefined;
  void response.then((answer) => (answered = answer));
  return {
    status: response.then((answer) => answer?.statusCode ?? 0),
    bytesRead: () => answered?.socket?.bytesRead ?? 0,
    async release(seconds = 10) {
      const answer = await response;
      if (!answer) return 'cut';
      const tally = new SseTally();
      const decoder = new TextDecoder();
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, seconds * 1000);
      try {
        for await (const piece of answer) tally.push(decoder.decode(piece as Buffer, { stream: true }));
      } catch {
        // closed by the gateway, or our own timeout
      } finally {
        clearTimeout(timer);
        answer.destroy();
      }
      if (tally.done && tally.errors === 0) return 'complete';
      return timedOut ? 'still-running' : 'cut';
    },
  };
}

/**
 * `connections` clients sending streams back to back for `seconds`: streams completed per
 * second and every outcome, for a throughput figure of whole streams.
 */
export async function streamLoad(
  target: StreamTarget,
  connections: number,
  seconds: number,
  signal: AbortSignal,
): Promise<{ outcomes: StreamOutcome[]; seconds: number }> {
  const pool = streamPool(target, connections);
  const outcomes: StreamOutcome[] = [];
  const start = performance.now();
  const until = start + seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < until && !signal.aborted) outcomes.push(await streamOnce(pool, target, signal));
      }),
    );
  } finally {
    await pool.close();
  }
  signal.throwIfAborted();
  return { outcomes, seconds: (performance.now() - start) / 1000 };
}
