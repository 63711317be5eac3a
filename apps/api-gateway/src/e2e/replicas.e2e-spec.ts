import { EVENTS, HEALTH_SUBJECTS, type HealthReply, type ServiceName } from '@gw/contracts';
import { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { busAuth, DEV_CATALOG_PATHS, IsolatedStackRun, type IsolatedStack } from '@gw/testing';
import OpenAI from 'openai';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

/*
 * Two replicas of every service and of the gateway, on one nats-server and one PostgreSQL
 * (issue 15, "Replicas, proven"; issue 9, item 3): real built processes, so a replica can be
 * killed with SIGKILL or stopped with SIGTERM as an orchestrator would. The load is small and
 * bounded (a few concurrent clients on 2 shared cores); nothing waits on a guessed delay where
 * an observable state can be polled.
 */

const LIVENESS_MS = 8_000;
const SERVICES = ['management', 'inference', 'batch', 'intern-signing'] as const;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const chatBody = { model: 'sim/gpt-4o-mini', messages: [{ role: 'user' as const, content: 'Say hi' }] };

/** A model whose provider answers after 20 s: a request to it is surely upstream when its replica is killed. */
const SLOW_MODEL = 'sim/replicas-slow';
const SLOW_UPSTREAM = 'gpt-4o-mini;latency=20000';

const run = new IsolatedStackRun('replicas');
let stack: IsolatedStack;
/** The cost of every answered chat of this file: the key's usage must end up exactly their sum. */
const answeredCosts: string[] = [];
let failed = false;
let management: pg.Client;
let nats: ResilientNatsConnection;
let rpc: RpcClient;

interface Outcome {
  ok: boolean;
  status: number;
  cost?: string;
  error?: string;
  body?: unknown;
}

/** A chat through one gateway with the openai client and no retries: what a user would see. */
async function chat(baseUrl: string, stream: boolean, model = chatBody.model): Promise<Outcome> {
  const client = new OpenAI({ apiKey: stack.apiKey, baseURL: baseUrl, maxRetries: 0, timeout: 60_000 });
  try {
    if (!stream) {
      const completion = await client.chat.completions.create({ ...chatBody, model });
      const cost = (completion.usage as { cost?: number } | undefined)?.cost;
      if (cost !== undefined) answeredCosts.push(String(cost));
      return { ok: completion.choices[0]?.message.content !== undefined && cost !== undefined, status: 200, cost: String(cost) };
    }
    const chunks = await client.chat.completions.create({ ...chatBody, model, stream: true, stream_options: { include_usage: true } });
    let cost: number | undefined;
    let text = '';
    for await (const chunk of chunks) {
      text += chunk.choices[0]?.delta.content ?? '';
      cost = (chunk.usage as { cost?: number } | undefined)?.cost ?? cost;
    }
    if (cost !== undefined) answeredCosts.push(String(cost));
    return { ok: text.length > 0 && cost !== undefined, status: 200, cost: String(cost) };
  } catch (error) {
    const status = (error as { status?: number }).status ?? 0;
    return { ok: false, status, error: (error as Error).message, body: (error as { error?: unknown }).error };
  }
}

/** A raw call, for the status and envelope of a failure. */
async function post(baseUrl: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: text };
  }
}

async function exactSum(costs: string[]): Promise<string> {
  const { rows } = await management.query<{ total: string }>(
    'SELECT coalesce(sum(c::numeric), 0)::text AS total FROM unnest($1::text[]) AS c',
    [costs],
  );
  return rows[0]!.total;
}

async function keyUsage(): Promise<string> {
  const { rows } = await management.query<{ usage: string }>('SELECT usage::text AS usage FROM api_keys WHERE hash = $1', [
    sha256(stack.apiKey),
  ]);
  return rows[0]!.usage;
}

/**
 * Polls until the key's usage equals the sum of every answered chat's cost (it trails the
 * answers by the outbox and consumer windows), then checks it is still exactly that a second
 * later: a usage event counted twice would have arrived by then. (The seeded key starts at 0.)
 */
async function expectUsageOfEveryAnswer(): Promise<void> {
  const expected = await exactSum(answeredCosts);
  const compare = async () => {
    const { rows } = await management.query<{ equal: boolean }>('SELECT $1::numeric = $2::numeric AS equal', [await keyUsage(), expected]);
    return rows[0]!.equal;
  };
  const deadline = Date.now() + 30_000;
  while (!(await compare()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  expect({ usage: await keyUsage(), equal: await compare() }).toMatchObject({ equal: true });
  expect(answeredCosts.length).toBeGreaterThan(0);
}

/**
 * What a load balancer does: it sends to the gateways whose readiness answers 200, polled every
 * 100 ms (a Kubernetes Service follows readiness probes seconds apart; the gateways'
 * SHUTDOWN_DELAY_MS covers that gap). As a probe's failure threshold does, a slow answer
 * (the machine is shared) takes a gateway out only after three in a row; a 503 or a refused
 * connection at once.
 */
class Balancer {
  private readonly ready = new Set<string>();
  private readonly slow = new Map<string, number>();
  private next = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly baseUrls: string[]) {
    for (const url of baseUrls) this.ready.add(url);
  }

  start(): void {
    this.timer = setInterval(() => void this.poll(), 100);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async pick(): Promise<string> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const ready = this.baseUrls.filter((url) => this.ready.has(url));
      if (ready.length > 0) return ready[this.next++ % ready.length]!;
      if (Date.now() > deadline) throw new Error('no gateway was ready for 30 s');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  private polling = false;

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      await Promise.all(this.baseUrls.map((url) => this.probe(url)));
    } finally {
      this.polling = false;
    }
  }

  private async probe(url: string): Promise<void> {
    try {
      const response = await fetch(url.replace(/\/v1$/, '/health/ready'), { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      this.slow.delete(url);
      if (response.ok) this.ready.add(url);
      else this.ready.delete(url);
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      const misses = (this.slow.get(url) ?? 0) + 1;
      this.slow.set(url, misses);
      if (!timedOut || misses >= 3) this.ready.delete(url);
    }
  }
}

beforeAll(async () => {
  // The dev catalog plus one slow model (a fixture of this test, like the simulator's directives).
  const catalog = { providers: [], models: [] as unknown[] };
  catalog.models.push({
    id: SLOW_MODEL,
    listed: false,
    name: 'Simulated model answering after 20 s (replica tests)',
    contextLength: 128000,
    supportedParameters: ['max_tokens'],
    endpoints: [{ provider: 'simulator-openai', upstreamModel: SLOW_UPSTREAM, pricing: { prompt: '0.00000015', completion: '0.0000006' } }],
  });
  const catalogPath = join(run.stateDir, 'replica-models.json');
  writeFileSync(catalogPath, JSON.stringify(catalog));
  stack = await run.start(new AbortController().signal, {
    replicas: 2,
    env: {
      MODEL_CATALOG_PATHS: [...DEV_CATALOG_PATHS, catalogPath].join(','),
      KEYS_USED_FLUSH_MS: '500',
      SHUTDOWN_DELAY_MS: '1000',
      SHUTDOWN_GRACE_MS: '20000',
      RPC_LIVENESS_TIMEOUT_MS: String(LIVENESS_MS),
    },
  });
  management = new pg.Client({ connectionString: stack.managementDatabaseUrl });
  await management.connect();
  nats = await ResilientNatsConnection.open({
    servers: stack.natsUrl,
    name: 'replicas-e2e',
    auth: busAuth(stack.natsSeeds, 'api-gateway'),
  });
  rpc = new RpcClient(nats, 5_000);
}, 400_000);

afterEach(({ task }) => {
  if (task.result?.state === 'fail') failed = true;
});

afterAll(async () => {
  rpc?.close();
  await nats?.close();
  await management?.end();
  // The processes' logs are kept when something failed.
  await run.teardown(failed);
  if (failed) console.error(`replica stack logs kept in ${run.logDir}`);
}, 60_000);

describe('two replicas of every service and of the gateway', () => {
  it('spreads the requests of each service over both of its replicas', async () => {
    for (const service of SERVICES) {
      const name = (service === 'intern-signing' ? 'internSigning' : service) as ServiceName;
      const replies = await Promise.all(Array.from({ length: 24 }, () => rpc.send<HealthReply>(HEALTH_SUBJECTS[name], {})));
      const pids = new Set(replies.map((reply) => Number(reply.instance.split(':').pop())));
      expect(pids, service).toEqual(new Set([run.process(`${service}-1`).pid, run.process(`${service}-2`).pid]));
    }
    // And chats through both gateways.
    const outcomes = await Promise.all(stack.baseUrls.flatMap((url) => [chat(url, false), chat(url, true)]));
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
  }, 60_000);

  it('counts each usage event once with two management and two inference replicas', async () => {
    const outcomes: Outcome[] = [];
    for (let round = 0; round < 5; round++) {
      outcomes.push(...(await Promise.all(stack.baseUrls.flatMap((url) => [chat(url, false), chat(url, true)]))));
    }
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
    await expectUsageOfEveryAnswer();
  }, 90_000);

  it('applies each keys.used batch once (one management replica of the queue group)', async () => {
    // The statement-level trigger notes every UPDATE statement on api_keys, even one that
    // changes no row: a batch applied twice would show as two statements.
    await management.query(`
      CREATE TABLE IF NOT EXISTS replicas_test_statements (id serial PRIMARY KEY, query text NOT NULL);
      CREATE OR REPLACE FUNCTION replicas_test_note() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO replicas_test_statements (query) VALUES (current_query()); RETURN NULL; END $$;
      DROP TRIGGER IF EXISTS replicas_test_note ON api_keys;
      CREATE TRIGGER replicas_test_note AFTER UPDATE ON api_keys FOR EACH STATEMENT EXECUTE FUNCTION replicas_test_note();`);
    try {
      // The gateways flush what earlier tests used within KEYS_USED_FLUSH_MS; let that pass first.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await management.query('TRUNCATE replicas_test_statements');
      const keyHash = sha256(stack.apiKey);
      const times = [1, 2, 3].map((minutes) => new Date(Date.now() + minutes * 60_000).toISOString());
      for (const lastUsedAt of times) {
        nats.connection.publish(
          EVENTS.keysUsed,
          JSON.stringify({ pattern: EVENTS.keysUsed, data: { entries: [{ keyHash, lastUsedAt }] } }),
        );
      }
      await nats.connection.flush();
      const deadline = Date.now() + 30_000;
      for (;;) {
        const { rows } = await management.query<{ at: Date | null }>('SELECT last_used_at AS at FROM api_keys WHERE hash = $1', [keyHash]);
        if (rows[0]?.at?.toISOString() === times[2]) break;
        if (Date.now() > deadline) throw new Error('the last keys.used batch was never applied');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // room for a second delivery to show up
      const { rows } = await management.query<{ count: number }>(
        "SELECT count(*)::int AS count FROM replicas_test_statements WHERE query ILIKE '%last_used_at%'",
      );
      expect(rows[0]!.count).toBe(3);
    } finally {
      await management.query('DROP TRIGGER IF EXISTS replicas_test_note ON api_keys');
    }
  }, 60_000);

  it('kill -9 of an inference replica: requests it had taken but not sent upstream are answered by the other one', async () => {
    // A stopped process still holds its subscription, so NATS keeps handing it requests that
    // it never starts: requests a replica has accepted but not sent upstream.
    run.process('inference-1').child.kill('SIGSTOP');
    const stuck: Array<Promise<Outcome & { tookMs: number }>> = [];
    const answered: Outcome[] = [];
    for (let attempt = 0; attempt < 30 && stuck.length < 2; attempt++) {
      const sentAt = Date.now();
      const pending = chat(stack.baseUrls[attempt % 2]!, attempt % 2 === 1).then((outcome) => ({
        ...outcome,
        tookMs: Date.now() - sentAt,
      }));
      const settled = await Promise.race([pending, new Promise<undefined>((resolve) => setTimeout(resolve, 3_000, undefined))]);
      if (settled === undefined) stuck.push(pending);
      else answered.push(settled);
    }
    expect(stuck.length).toBeGreaterThan(0);
    const killedAt = Date.now();
    await run.stopProcess('inference-1', 'SIGKILL');
    const outcomes = await Promise.all(stuck);
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
    expect(answered.filter((outcome) => !outcome.ok)).toEqual([]);
    // Answered after the liveness timeout: sent again once the replica was known dead.
    expect(Math.max(...outcomes.map((outcome) => outcome.tookMs))).toBeGreaterThanOrEqual(LIVENESS_MS);
    expect(Date.now() - killedAt).toBeLessThan(LIVENESS_MS + 10_000);
    await run.restartProcess('inference-1');
  }, 240_000);

  it('kill -9 of the inference replica working on a request: a retryable 503 within about 10 s, and the next request is served', async () => {
    // Only inference-1 runs while the slow requests are sent, so they are its.
    const stopped = await run.stopProcess('inference-2', 'SIGTERM');
    expect(stopped).toEqual({ code: 0, signal: null });
    const reachedProvider = async () => {
      const response = await fetch(`${stack.simulatorUrl}/sim/streams?key=${encodeURIComponent(SLOW_UPSTREAM)}`);
      return ((await response.json()) as { received: number }).received;
    };
    const before = await reachedProvider();
    const slow = { ...chatBody, model: SLOW_MODEL };
    const requests = [post(stack.baseUrls[0]!, slow), post(stack.baseUrls[1]!, slow), post(stack.baseUrls[0]!, { ...slow, stream: true })];
    let restarting: Promise<void> | undefined;
    try {
      const deadline = Date.now() + 60_000;
      while ((await reachedProvider()) < before + requests.length) {
        if (Date.now() > deadline) throw new Error('the slow requests never reached the provider');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const killedAt = Date.now();
      await run.stopProcess('inference-1', 'SIGKILL');
      restarting = run.restartProcess('inference-2');
      const results = await Promise.all(requests.map((request) => request.then((result) => ({ ...result, after: Date.now() - killedAt }))));
      for (const result of results) {
        expect(result).toMatchObject({
          status: 503,
          body: { error: { code: 503, metadata: { error_type: 'server', reason: 'replica_lost', retryable: true } } },
        });
        expect(result.after).toBeLessThan(LIVENESS_MS + 4_000);
      }
      await restarting;
      expect((await chat(stack.baseUrls[0]!, false)).ok).toBe(true);
    } finally {
      // The next test needs both replicas, whatever happened here.
      await restarting?.catch(() => undefined);
      if (run.process('inference-2').child.exitCode !== null) await run.restartProcess('inference-2');
      await run.stopProcess('inference-1', 'SIGKILL');
      await run.restartProcess('inference-1');
    }
  }, 240_000);

  it('rolling restart (SIGTERM to each replica in turn) under load: zero failed requests, usage counted once', async () => {
    const balancer = new Balancer(stack.baseUrls);
    balancer.start();
    const outcomes: Outcome[] = [];
    let loading = true;
    const worker = async (index: number) => {
      for (let n = 0; loading; n++) {
        try {
          outcomes.push(await chat(await balancer.pick(), (n + index) % 2 === 0));
        } catch (error) {
          outcomes.push({ ok: false, status: 0, error: (error as Error).message });
        }
      }
    };
    const workers = [0, 1, 2].map((index) => worker(index));
    const exits: Record<string, unknown> = {};
    try {
      const order = [...SERVICES.flatMap((service) => [`${service}-1`, `${service}-2`]), 'api-gateway-1', 'api-gateway-2'];
      for (const name of order) {
        exits[name] = await run.stopProcess(name, 'SIGTERM');
        await run.restartProcess(name);
      }
    } finally {
      loading = false;
      await Promise.all(workers);
      balancer.stop();
    }
    expect(
      Object.values(exits).every((exit) => JSON.stringify(exit) === JSON.stringify({ code: 0, signal: null })),
      JSON.stringify(exits),
    ).toBe(true);
    expect(outcomes.filter((outcome) => !outcome.ok)).toEqual([]);
    expect(outcomes.length).toBeGreaterThan(30);
    await expectUsageOfEveryAnswer();
  }, 600_000);
});
