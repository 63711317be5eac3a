import { JETSTREAM } from '@gw/contracts';
import { ResilientNatsConnection } from '@gw/messaging';
import { busAuth, type IsolatedStack } from '@gw/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import OpenAI from 'openai';
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';

/*
 * Load and accounting for the fault tests (issue 36): connections that send chats, plain and
 * streamed in turn, without retries, while a test breaks something; then what was answered,
 * what failed and how, what was billed and whether every usage event was delivered.
 */

const chatBody = { model: 'sim/gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Say hi' }] };

export interface Outcome {
  stream: boolean;
  status: number;
  /** The error's `metadata.reason` (or the client's message when none came). */
  reason?: string;
  retryable?: boolean;
  /** `usage.cost` of an answer, as JSON carried it. */
  cost?: string;
  /** The answer's id: its generation's, under which management counts it. */
  generationId?: string;
  /** Failed after its 200 and first chunks (an error event in the stream). */
  midStream?: boolean;
  /** With `Idempotency-Key` retries: the failed attempts before this outcome (their statuses). */
  retried?: number[];
  startedAt: number;
  tookMs: number;
}

/** A chat with the openai client and no retries: what a user would see. With `idempotencyKey`, sent with that key. */
async function chat(client: OpenAI, stream: boolean, idempotencyKey?: string): Promise<Outcome> {
  const startedAt = Date.now();
  const done = (fields: Partial<Outcome>): Outcome => ({ stream, status: 200, startedAt, tookMs: Date.now() - startedAt, ...fields });
  const options = idempotencyKey ? { headers: { 'Idempotency-Key': idempotencyKey } } : undefined;
  try {
    if (!stream) {
      const completion = await client.chat.completions.create(chatBody, options);
      const cost = (completion.usage as { cost?: number } | undefined)?.cost;
      if (cost === undefined) return done({ status: -1, reason: 'answer without usage.cost' });
      return done({ cost: String(cost), generationId: completion.id });
    }
    const chunks = await client.chat.completions.create({ ...chatBody, stream: true, stream_options: { include_usage: true } }, options);
    let cost: number | undefined;
    let generationId: string | undefined;
    for await (const chunk of chunks) {
      generationId ??= chunk.id;
      cost = (chunk.usage as { cost?: number } | undefined)?.cost ?? cost;
    }
    return cost === undefined ? done({ status: -1, reason: 'stream without usage.cost' }) : done({ cost: String(cost), generationId });
  } catch (error) {
    const body = (error as { error?: { code?: number; metadata?: { reason?: string; retryable?: boolean } } }).error;
    const status = (error as { status?: number }).status;
    return done({
      // An error event inside a stream has no HTTP status of its own: its envelope's code stands for it.
      status: status ?? body?.code ?? 0,
      midStream: status === undefined,
      reason: body?.metadata?.reason ?? (error as Error).message,
      retryable: body?.metadata?.retryable,
    });
  }
}

/** Attempts of one request with `Idempotency-Key`, the first included. */
const KEYED_ATTEMPTS = 8;

/**
 * What a client that retries does: each request with a key of its own, sent again with that key
 * after a retryable failure (or a lost connection), until answered or out of attempts.
 */
async function keyedChat(client: OpenAI, stream: boolean): Promise<Outcome> {
  const idempotencyKey = randomUUID();
  const retried: number[] = [];
  for (let attempt = 1; ; attempt++) {
    const outcome = await chat(client, stream, idempotencyKey);
    const retryable = outcome.status === 0 || outcome.retryable === true;
    if (outcome.status === 200 || !retryable || attempt === KEYED_ATTEMPTS) return { ...outcome, retried };
    retried.push(outcome.status);
    await new Promise((resolve) => setTimeout(resolve, 250 * attempt));
  }
}

/** Connections of the fault tests: 8 by default (2 shared cores); `GW_CLUSTER_CONNECTIONS=32` runs the load. */
export function loadConnections(): number {
  const asked = Number(process.env.GW_CLUSTER_CONNECTIONS ?? 8);
  if (!Number.isInteger(asked) || asked < 1)
    throw new Error(`GW_CLUSTER_CONNECTIONS must be a positive integer, not ${process.env.GW_CLUSTER_CONNECTIONS}`);
  return asked;
}

/**
 * `connections` loops of chats (plain, streamed, plain, ...) until `stop()`; resolves with every
 * outcome. With `idempotent`, each chat carries an `Idempotency-Key` and is retried with it.
 */
export function startLoad(
  stack: IsolatedStack,
  connections: number,
  options: { idempotent?: boolean } = {},
): { stop: () => Promise<Outcome[]> } {
  const outcomes: Outcome[] = [];
  let running = true;
  const loops = Array.from({ length: connections }, async (_, index) => {
    const client = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0, timeout: 60_000 });
    for (let turn = index; running; turn++)
      outcomes.push(options.idempotent ? await keyedChat(client, turn % 2 === 1) : await chat(client, turn % 2 === 1));
  });
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return outcomes;
    },
  };
}

export interface LoadReport {
  sent: number;
  answered: number;
  /** Failures by `status reason` (`, mid-stream` for an error event after the first chunks). */
  failed: Record<string, number>;
  longestMs: number;
  /** Every failure was a 503 the client may retry. */
  onlyRetryable503s: boolean;
}

export function report(outcomes: Outcome[]): LoadReport {
  const failures = outcomes.filter((outcome) => outcome.status !== 200);
  const failed: Record<string, number> = {};
  for (const failure of failures) {
    const kind = `${failure.status} ${failure.reason}${failure.midStream ? ', mid-stream' : ''}`;
    failed[kind] = (failed[kind] ?? 0) + 1;
  }
  return {
    sent: outcomes.length,
    answered: outcomes.length - failures.length,
    failed,
    longestMs: Math.max(0, ...outcomes.map((outcome) => outcome.tookMs)),
    onlyRetryable503s: failures.every((failure) => failure.status === 503 && failure.retryable === true),
  };
}

/** Management's books, read where management keeps them. */
export class Ledger {
  private constructor(
    private readonly database: pg.Client,
    private readonly keyHash: string,
  ) {}

  static async open(stack: IsolatedStack): Promise<Ledger> {
    const database = new pg.Client({ connectionString: stack.managementDatabaseUrl });
    await database.connect();
    return new Ledger(database, createHash('sha256').update(stack.apiKey).digest('hex'));
  }

  /** The key's spend, as management counted it (numeric, as text). */
  async billed(): Promise<string> {
    const { rows } = await this.database.query<{ usage: string }>('SELECT usage::text AS usage FROM api_keys WHERE hash = $1', [
      this.keyHash,
    ]);
    return rows[0]!.usage;
  }

  /** The exact decimal sum of the answers' costs (PostgreSQL's numeric: no float on the way). */
  async sum(costs: string[]): Promise<string> {
    const { rows } = await this.database.query<{ total: string }>(
      'SELECT coalesce(sum(c::numeric), 0)::text AS total FROM unnest($1::text[]) AS c',
      [costs],
    );
    return rows[0]!.total;
  }

  async equal(a: string, b: string): Promise<boolean> {
    const { rows } = await this.database.query<{ equal: boolean }>('SELECT $1::numeric = $2::numeric AS equal', [a, b]);
    return rows[0]!.equal;
  }

  /**
   * Waits until the key's spend equals `expected` (it trails the answers by the consumer's
   * batch), then reads it again a second later: an event counted twice would show by then.
   */
  async settledBilled(expected: string, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (!(await this.equal(await this.billed(), expected)) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 250));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    return this.billed();
  }

  /**
   * What management counted for the key (its ledger, one row per generation) against what the
   * clients were answered: each answered generation counted once at its answered cost, the
   * key's spend the ledger's sum, and the generations counted but never answered (generated,
   * then the answer was lost or refused; billed like an abandoned stream).
   */
  async reconcile(answers: Outcome[]): Promise<{
    billed: string;
    answeredSum: string;
    answeredMissingOrWrong: number;
    billedUnanswered: number;
    billedUnansweredSum: string;
    ledgerSumEqualsSpend: boolean;
  }> {
    const answered = answers.filter((answer) => answer.generationId !== undefined && answer.cost !== undefined);
    const { rows } = await this.database.query<{ missing: number; unanswered: number; unanswered_sum: string; ledger_sum: string }>(
      `WITH answered AS (SELECT * FROM unnest($2::text[], $3::text[]) AS a(id, cost)),
            ledger AS (SELECT generation_id AS id, cost FROM usage_ledger WHERE key_hash = $1)
       SELECT
         (SELECT count(*)::int FROM answered a LEFT JOIN ledger l ON l.id = a.id WHERE l.id IS NULL OR l.cost <> a.cost::numeric) AS missing,
         (SELECT count(*)::int FROM ledger l WHERE l.id NOT IN (SELECT id FROM answered)) AS unanswered,
         (SELECT coalesce(sum(cost), 0)::text FROM ledger l WHERE l.id NOT IN (SELECT id FROM answered)) AS unanswered_sum,
         (SELECT coalesce(sum(cost), 0)::text FROM ledger) AS ledger_sum`,
      [this.keyHash, answered.map((answer) => answer.generationId), answered.map((answer) => answer.cost)],
    );
    const billed = await this.billed();
    return {
      billed,
      answeredSum: await this.sum(answered.map((answer) => answer.cost!)),
      answeredMissingOrWrong: rows[0]!.missing,
      billedUnanswered: rows[0]!.unanswered,
      billedUnansweredSum: rows[0]!.unanswered_sum,
      ledgerSumEqualsSpend: await this.equal(rows[0]!.ledger_sum, billed),
    };
  }

  close(): Promise<void> {
    return this.database.end();
  }
}

const USAGE_CONSUMERS = [
  { user: 'management', durable: JETSTREAM.consumers.managementUsage },
  { user: 'inference', durable: JETSTREAM.consumers.inferenceGenerations },
] as const;

/** The USAGE stream and its consumers as JetStream reports them, each read with its service's credentials. */
export async function usageStreamState(stack: IsolatedStack): Promise<{
  replicas: number;
  leader?: string;
  consumers: Record<string, { pending: number; ackPending: number; replicas: number }>;
}> {
  const consumers: Record<string, { pending: number; ackPending: number; replicas: number }> = {};
  let stream: { replicas: number; leader?: string } | undefined;
  for (const { user, durable } of USAGE_CONSUMERS) {
    const nats = await ResilientNatsConnection.open({ servers: stack.natsUrl, name: 'fault-test', auth: busAuth(stack.natsSeeds, user) });
    try {
      const manager = await jetstreamManager(nats.connection);
      const info = await manager.streams.info(JETSTREAM.usageStream);
      stream ??= { replicas: info.config.num_replicas, leader: info.cluster?.leader };
      const consumer = await manager.consumers.info(JETSTREAM.usageStream, durable);
      consumers[durable] = {
        pending: consumer.num_pending,
        ackPending: consumer.num_ack_pending,
        replicas: consumer.config.num_replicas ?? 0,
      };
    } finally {
      await nats.close();
    }
  }
  return { ...stream!, consumers };
}

/** The gateway's calls sent again after their replica went silent (`nats_request_resends_total`, all subjects). */
export async function gatewayResends(stack: IsolatedStack): Promise<number> {
  const text = await (await fetch(stack.metricsUrls['api-gateway']!)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith('nats_request_resends_total{'))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** Polls until no usage event waits for a consumer (nothing pending, nothing unacknowledged). */
export async function usageDelivered(stack: IsolatedStack, timeoutMs = 60_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await usageStreamState(stack).catch(() => undefined);
    const consumers = Object.values(state?.consumers ?? {});
    if (consumers.length === USAGE_CONSUMERS.length && consumers.every((consumer) => consumer.pending === 0 && consumer.ackPending === 0))
      return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
