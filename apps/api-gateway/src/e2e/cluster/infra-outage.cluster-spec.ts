import { IsolatedStackRun, POSTGRES_URL, PrivateRedisServer, TcpRelay, type IsolatedStack } from '@gw/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Ledger, loadConnections, report, startLoad, type Outcome, usageDelivered } from './chat-load.js';

/*
 * Issue 36, item 4: PostgreSQL and Redis going away under load. PostgreSQL here is the machine's
 * server, shared by every run: it is never restarted; the services reach it through a relay
 * that the test cuts (every connection reset, new ones refused) and restores, as a restart looks
 * to them. Redis is a server of the test's own, stopped and started for real.
 */

const CONNECTIONS = loadConnections();
const OUTAGE_MS = 6_000;
/** After this long past the restore every service must have reconnected by itself. */
const RECOVERY_MS = 10_000;

const run = new IsolatedStackRun('outage');
let stack: IsolatedStack;
let relay: TcpRelay;
let redis: PrivateRedisServer;
let ledger: Ledger;
let failed = false;
const allOutcomes: Outcome[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  const postgres = new URL(POSTGRES_URL);
  relay = await TcpRelay.start({ host: postgres.hostname, port: Number(postgres.port || 5432) });
  redis = await PrivateRedisServer.start();
  postgres.host = `127.0.0.1:${relay.port}`;
  stack = await run.start(new AbortController().signal, { servicesPostgresUrl: postgres.toString(), redisUrl: redis.url });
  ledger = await Ledger.open(stack);
}, 400_000);

afterEach(({ task }) => {
  if (task.result?.state === 'fail') failed = true;
});

afterAll(async () => {
  await ledger?.close();
  await run.teardown(failed);
  await relay?.close();
  await redis?.stop();
  if (failed) console.error(`outage stack logs kept in ${run.logDir}`);
}, 60_000);

/** A raw gateway call with a key, for statuses and rate-limit headers. */
async function get(path: string, key: string): Promise<{ status: number; limit: string | null }> {
  const response = await fetch(`${stack.baseUrl}${path}`, { headers: { authorization: `Bearer ${key}` } });
  await response.arrayBuffer();
  return { status: response.status, limit: response.headers.get('x-ratelimit-limit') };
}

async function keyWithRateLimit(requestsPerMinute: number): Promise<string> {
  const response = await fetch(`${stack.baseUrl}/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.managementKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: `outage ${requestsPerMinute}/min ${Date.now()}`, rate_limit: { requests_per_minute: requestsPerMinute } }),
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { key: string }).key;
}

/** Every usage event delivered, every answered generation counted once at its cost. */
async function expectBooksBalanced(name: string, outcomes: Outcome[], extra: Record<string, unknown>): Promise<void> {
  allOutcomes.push(...outcomes);
  const delivered = await usageDelivered(stack);
  let books = await ledger.reconcile(allOutcomes);
  for (const deadline = Date.now() + 30_000; books.answeredMissingOrWrong > 0 && Date.now() < deadline;) {
    await sleep(500);
    books = await ledger.reconcile(allOutcomes);
  }
  console.log(`${name}: ${JSON.stringify({ ...report(outcomes), ...extra, delivered, ...books })}`);
  expect(delivered).toBe(true);
  expect(books).toMatchObject({ answeredMissingOrWrong: 0, ledgerSumEqualsSpend: true });
  expect(books.billedUnanswered).toBeLessThanOrEqual(report(allOutcomes).sent - report(allOutcomes).answered);
}

describe('PostgreSQL and Redis going away under load', () => {
  it('PostgreSQL connections cut for 6 s: errors only during the cut, every service back by itself, no usage event lost', async () => {
    const load = startLoad(stack, CONNECTIONS);
    let cutAt = 0;
    let restoredAt = 0;
    let keysDuringCut = { status: 0, limit: null as string | null };
    let outcomes: Outcome[];
    try {
      await sleep(3_000);
      cutAt = Date.now();
      await relay.cut();
      // What needs PostgreSQL now fails: key management reads it on every call.
      keysDuringCut = await get('/keys', stack.managementKey);
      await sleep(Math.max(0, cutAt + OUTAGE_MS - Date.now()));
      await relay.restore();
      restoredAt = Date.now();
      await sleep(RECOVERY_MS + 5_000);
    } finally {
      outcomes = await load.stop();
    }
    const failures = outcomes.filter((outcome) => outcome.status !== 200);
    const window = {
      keysDuringCut: keysDuringCut.status,
      firstFailureAfterCutMs: failures.length > 0 ? Math.min(...failures.map((f) => f.startedAt)) - cutAt : null,
      lastFailureAfterRestoreMs: failures.length > 0 ? Math.max(...failures.map((f) => f.startedAt + f.tookMs)) - restoredAt : null,
    };
    expect(keysDuringCut.status).toBeGreaterThanOrEqual(500);
    // A chat failing with PostgreSQL gone is a 5xx, never a wrong 4xx.
    expect(failures.filter((failure) => failure.status < 500 || failure.status > 504)).toEqual([]);
    // Past the recovery time nothing fails: every service reconnected without help.
    expect(outcomes.filter((outcome) => outcome.startedAt > restoredAt + RECOVERY_MS && outcome.status !== 200)).toEqual([]);
    expect(outcomes.filter((outcome) => outcome.startedAt > restoredAt + RECOVERY_MS).length).toBeGreaterThan(CONNECTIONS);
    // Management answers from its database again (key management reads it on every call).
    expect((await get('/keys', stack.managementKey)).status).toBe(200);
    await expectBooksBalanced('postgres cut', outcomes, window);
  }, 300_000);

  it('Redis restarted: limits fail open meanwhile, chats go on, and the limits are counted again after', async () => {
    const limited = await keyWithRateLimit(3);
    const load = startLoad(stack, CONNECTIONS);
    let outcomes: Outcome[];
    const duringOutage: Array<{ status: number; limit: string | null }> = [];
    let limitsBackAfterMs = -1;
    try {
      await sleep(3_000);
      await redis.stop();
      // Five requests of a key allowed three a minute: Redis down, no limit is applied (fail open).
      for (let index = 0; index < 5; index++) duringOutage.push(await get('/models', limited));
      await sleep(3_000);
      await redis.resume();
      const upAt = Date.now();
      for (const deadline = upAt + 30_000; Date.now() < deadline; await sleep(200)) {
        if ((await get('/models', limited)).limit !== null) {
          limitsBackAfterMs = Date.now() - upAt;
          break;
        }
      }
      await sleep(2_000);
    } finally {
      outcomes = await load.stop();
    }
    expect(duringOutage).toEqual(Array.from({ length: 5 }, () => ({ status: 200, limit: null })));
    expect(limitsBackAfterMs).toBeGreaterThanOrEqual(0);
    // Counted again: a fresh key allowed three a minute gets its fourth request refused.
    const fresh = await keyWithRateLimit(3);
    const statuses = [];
    for (let index = 0; index < 4; index++) statuses.push((await get('/models', fresh)).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(report(outcomes).failed).toEqual({});
    await expectBooksBalanced('redis restart', outcomes, { limitsBackAfterMs });
  }, 300_000);
});
