import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { sleep } from '../http.ts';

/**
 * The engine under both providers' batch APIs: a batch's lines run one by one (a few at a
 * time) through the simulator's own HTTP routes, so each line gets exactly the deterministic
 * answer, validation and per-line fault directives a live call would. Batches progress over
 * time: `delayMs` in the provider's first state (validating), then the lines, then ended.
 *
 * Batch-level directives come from the first line's model (`sim-gpt;batch-delay=50;...`) or
 * from `x-sim-batch-*` headers on the create call:
 * - `batch-delay=ms`: time before lines start (default `configureBatches({delayMs})`, env SIMULATOR_BATCH_DELAY_MS)
 * - `batch-line-delay=ms`: time each line waits before it runs (so a test can cancel mid-run)
 * - `batch-expire=N`: only N lines run, then the window "passes": the rest expire
 * - `batch-fail=1`: the provider refuses the batch (OpenAI: `failed` after validation; Anthropic: 400 at create)
 * - `batch-status=code`: the create call itself answers that status (the provider's error body)
 */
export interface BatchDirectives {
  delayMs: number;
  lineDelayMs: number;
  expireAfter?: number;
  fail: boolean;
  createStatus?: number;
}

let defaultDelayMs = Number(process.env.SIMULATOR_BATCH_DELAY_MS ?? 200);

/** How long a batch stays in its first state by default (tests keep it short). */
export function configureBatches(options: { delayMs?: number }): void {
  if (options.delayMs !== undefined) defaultDelayMs = options.delayMs;
}

const LINE_CONCURRENCY = 8;

function intOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value.trim());
  return Number.isFinite(n) && n >= 0 ? Math.floor(n) : undefined;
}

/** Reads the batch directives from a model string (`base;batch-delay=10`) and `x-sim-batch-*` headers (a header wins). */
export function batchDirectives(model: unknown, headers: IncomingHttpHeaders): BatchDirectives {
  const values = new Map<string, string>();
  if (typeof model === 'string') {
    for (const part of model.split(';').slice(1)) {
      const eq = part.indexOf('=');
      if (eq > 0) values.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1));
    }
  }
  for (const name of ['batch-delay', 'batch-line-delay', 'batch-expire', 'batch-fail', 'batch-status']) {
    const header = headers[`x-sim-${name}`];
    if (typeof header === 'string') values.set(name, header);
  }
  const status = intOf(values.get('batch-status'));
  return {
    delayMs: intOf(values.get('batch-delay')) ?? defaultDelayMs,
    lineDelayMs: intOf(values.get('batch-line-delay')) ?? 0,
    expireAfter: intOf(values.get('batch-expire')),
    fail: (intOf(values.get('batch-fail')) ?? 0) > 0,
    createStatus: status !== undefined && status >= 400 && status <= 599 ? status : undefined,
  };
}

/** The simulator's own address, from the socket the create call came in on. */
export function selfBaseUrl(req: IncomingMessage): string {
  const address = req.socket.localAddress ?? '127.0.0.1';
  const host = address.includes(':') ? (address.startsWith('::ffff:') ? address.slice(7) : `[${address}]`) : address;
  return `http://${host}:${req.socket.localPort}`;
}

export interface BatchLine {
  customId: string;
  /** Path on the simulator, e.g. `/v1/chat/completions` or `/anthropic/v1/messages`. */
  path: string;
  body: unknown;
}

export interface LineOutcome {
  customId: string;
  /** `ran`: the route answered (any status); `expired` / `cancelled`: never ran. */
  kind: 'ran' | 'expired' | 'cancelled';
  status?: number;
  body?: unknown;
  requestId?: string;
}

export type JobPhase = 'queued' | 'running' | 'ended';

/** One batch being run. The provider modules turn its phase and outcomes into their own objects. */
export class BatchJob {
  phase: JobPhase = 'queued';
  cancelRequested = false;
  expired = false;
  startedAt?: number;
  endedAt?: number;
  readonly outcomes = new Map<string, LineOutcome>();
  readonly lines: readonly BatchLine[];
  readonly directives: BatchDirectives;
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  private readonly done: Promise<void>;

  constructor(lines: readonly BatchLine[], baseUrl: string, headers: Record<string, string>, directives: BatchDirectives) {
    this.lines = lines;
    this.baseUrl = baseUrl;
    this.headers = headers;
    this.directives = directives;
    this.done = this.run();
  }

  /** Resolves when the job has ended (tests may await it). */
  finished(): Promise<void> {
    return this.done;
  }

  cancel(): void {
    this.cancelRequested = true;
  }

  get succeeded(): number {
    return [...this.outcomes.values()].filter((outcome) => outcome.kind === 'ran' && outcome.status !== undefined && outcome.status < 400)
      .length;
  }

  get errored(): number {
    return [...this.outcomes.values()].filter(
      (outcome) => outcome.kind === 'ran' && (outcome.status === undefined || outcome.status >= 400),
    ).length;
  }

  count(kind: LineOutcome['kind']): number {
    return [...this.outcomes.values()].filter((outcome) => outcome.kind === kind).length;
  }

  private async run(): Promise<void> {
    await sleep(this.directives.delayMs);
    if (this.cancelRequested) return this.end();
    this.phase = 'running';
    this.startedAt = Date.now();
    let next = 0;
    let started = 0;
    const worker = async () => {
      while (next < this.lines.length) {
        const line = this.lines[next++]!;
        if (this.cancelRequested) continue;
        if (this.directives.expireAfter !== undefined && started >= this.directives.expireAfter) {
          this.expired = true;
          continue;
        }
        started++;
        await sleep(this.directives.lineDelayMs);
        if (this.cancelRequested) {
          started--;
          continue;
        }
        this.outcomes.set(line.customId, await this.runLine(line));
      }
    };
    await Promise.all(Array.from({ length: Math.min(LINE_CONCURRENCY, this.lines.length) }, worker));
    this.end();
  }

  private end(): void {
    for (const line of this.lines) {
      if (!this.outcomes.has(line.customId))
        this.outcomes.set(line.customId, { customId: line.customId, kind: this.cancelRequested ? 'cancelled' : 'expired' });
    }
    this.phase = 'ended';
    this.endedAt = Date.now();
  }

  private async runLine(line: BatchLine): Promise<LineOutcome> {
    try {
      const response = await fetch(`${this.baseUrl}${line.path}`, {
        method: 'POST',
        headers: { ...this.headers, 'content-type': 'application/json' },
        body: JSON.stringify(line.body),
      });
      const text = await response.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = {
          error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null },
        };
      }
      return {
        customId: line.customId,
        kind: 'ran',
        status: response.status,
        body,
        requestId: response.headers.get('request-id') ?? undefined,
      };
    } catch (error) {
      return {
        customId: line.customId,
        kind: 'ran',
        status: 500,
        body: {
          error: { message: `Simulator batch line failed: ${(error as Error).message}`, type: 'server_error', param: null, code: null },
        },
      };
    }
  }
}

/** The model of a line body, for its directives (`undefined` when it has none). */
export function lineModel(body: unknown): unknown {
  return body !== null && typeof body === 'object' ? (body as { model?: unknown }).model : undefined;
}
