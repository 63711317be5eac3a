import { DEV_CATALOG_PATHS, IsolatedStackRun, type IsolatedStack } from '@gw/testing';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

/*
 * Issue 13, "Exactly once": two batch replicas share a gateway-run batch under leases;
 * one is killed with SIGKILL mid-run. Every line is counted: none lost, none twice,
 * and the batch's cost (charged once) is the exact sum of its lines' costs. A stack
 * of its own: two replicas of each service, and short leases so the dead replica's lines come
 * back within seconds.
 */

const LINES = 400;
/** A model whose provider answers after 150 ms and has no batch API: the batch service runs its lines. */
const SLOW_MODEL = 'sim/batch-replicas-slow';

const run = new IsolatedStackRun('batchreplicas');
let stack: IsolatedStack;
let management: pg.Client;
let failed = false;

beforeAll(async () => {
  const catalog = { providers: [], models: [] as unknown[] };
  catalog.models.push({
    id: SLOW_MODEL,
    listed: false,
    name: 'Simulated model answering after 150 ms (batch replica tests)',
    contextLength: 128000,
    supportedParameters: ['max_tokens'],
    endpoints: [
      {
        provider: 'simulator-openai',
        upstreamModel: 'gpt-4o-mini;latency=150',
        pricing: { prompt: '0.00000015', completion: '0.0000006' },
      },
    ],
  });
  const catalogPath = join(run.stateDir, 'batch-replica-models.json');
  writeFileSync(catalogPath, JSON.stringify(catalog));
  stack = await run.start(new AbortController().signal, {
    replicas: 2,
    // The test needs both replicas running lines of one batch. An idle replica's own poll waits a
    // minute here, so the one that did not take the submit is brought in by the other's
    // `events.batches.changed` alone, through the bus permissions of the stack.
    // The workspace may run 16 lines at once, so both replicas' 8 slots fill when the batch starts:
    // a replica whose claim found the workspace full is not woken by lines finishing elsewhere.
    env: {
      MODEL_CATALOG_PATHS: [...DEV_CATALOG_PATHS, catalogPath].join(','),
      BATCH_LEASE_MS: '3000',
      BATCH_POLL_MS: '100',
      BATCH_IDLE_POLL_MS: '60000',
      BATCH_WORKSPACE_CONCURRENCY: '16',
    },
  });
  management = new pg.Client({ connectionString: stack.managementDatabaseUrl });
  await management.connect();
}, 400_000);

afterEach(({ task }) => {
  if (task.result?.state === 'fail') failed = true;
});

afterAll(async () => {
  await management?.end();
  await run.teardown(failed);
  if (failed) console.error(`batch replica stack logs kept in ${run.logDir}`);
});

async function call(path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method: init.method ?? (init.body ? 'POST' : 'GET'),
    headers: { authorization: `Bearer ${stack.apiKey}`, ...(init.body ? { 'content-type': 'application/json' } : {}) },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: response.status, body: await response.json() };
}

/**
 * A read as a client retrying a retryable answer would do: right after the kill, a request the
 * dead replica had taken answers 503 once the caller notices it is gone.
 */
async function read(id: string): Promise<any> {
  for (let attempt = 0; ; attempt++) {
    const result = await call(`/batches/${id}`);
    if (result.status === 200) return result.body;
    if (result.status < 500 || attempt >= 5) throw new Error(`GET /v1/batches/${id}: ${result.status} ${JSON.stringify(result.body)}`);
  }
}

async function workspaceUsage(): Promise<string> {
  const { rows } = await management.query<{ usage: string }>('SELECT usage_total::text AS usage FROM workspaces WHERE id = $1', [
    stack.workspaceId,
  ]);
  return rows[0]!.usage;
}

describe('a batch replica killed mid-run', () => {
  it('loses no line and runs none twice: 400 results, counts equal, the charge the exact sum of the line costs', async () => {
    const usageBefore = await workspaceUsage();
    const requests = Array.from({ length: LINES }, (_, n) => ({
      custom_id: `line ${n}`,
      body: { messages: [{ role: 'user', content: `Line ${n}` }] },
    }));
    const created = await call('/batches', {
      body: { endpoint: '/v1/chat/completions', model: SLOW_MODEL, completion_window: '24h', requests },
    });
    expect(created.status).toBe(202);
    const id = created.body.id as string;

    // Kill batch-1 once the batch is well under way and batch-1 holds leases (its lease owner starts with its pid).
    const batchDatabase = new pg.Client({ connectionString: stack.managementDatabaseUrl.replace(/_management(\?|$)/, '_batch$1') });
    await batchDatabase.connect();
    const victim = run.process('batch-1').child.pid!;
    const heldByVictim = async () => {
      const { rows } = await batchDatabase.query<{ held: string }>(
        "SELECT count(*)::text AS held FROM batch_requests WHERE batch_id = $1 AND status = 'running' AND lease_owner LIKE $2",
        [id, `${victim}-%`],
      );
      return Number(rows[0]!.held);
    };
    await expect.poll(async () => (await read(id)).request_counts.completed, { timeout: 60_000, interval: 100 }).toBeGreaterThanOrEqual(40);
    await expect.poll(heldByVictim, { timeout: 30_000, interval: 20 }).toBeGreaterThan(0);
    const victimChild = run.process('batch-1').child;
    const exited = new Promise((resolve) => victimChild.once('exit', resolve));
    victimChild.kill('SIGKILL');
    await exited;
    // What it held when it died, once PostgreSQL has settled its last statements: on a loaded
    // machine it may have finished the leases the poll saw before the signal landed.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const heldAtDeath = await heldByVictim();
    const killedAt = (await read(id)).request_counts.completed as number;
    expect(killedAt).toBeLessThan(LINES);

    await expect.poll(async () => (await read(id)).status, { timeout: 120_000, interval: 250 }).toBe('completed');
    const batch = await read(id);
    expect(batch.request_counts).toEqual({ total: LINES, completed: LINES, failed: 0 });
    expect(batch.results).toHaveLength(LINES);
    expect(new Set(batch.results.map((item: { custom_id: string }) => item.custom_id)).size).toBe(LINES);
    expect(batch.results.every((item: { response: { status_code: number } | null }) => item.response?.status_code === 200)).toBe(true);

    const costs: string[] = batch.results.map((item: { response: { body: { usage: { cost: number } } } }) =>
      String(item.response.body.usage.cost),
    );
    const { rows } = await management.query<{ sum: string; expected: string }>(
      'SELECT (SELECT sum(c::numeric) FROM unnest($1::text[]) AS c)::text AS sum, ($2::numeric + (SELECT sum(c::numeric) FROM unnest($1::text[]) AS c))::text AS expected',
      [costs, usageBefore],
    );
    expect(Number(batch.usage.cost)).toBe(Number(rows[0]!.sum));
    // Charged once, at this first read of the completed batch: the workspace's usage grows by exactly the sum.
    await expect
      .poll(
        async () => {
          const { rows: equal } = await management.query<{ equal: boolean }>('SELECT $1::numeric = $2::numeric AS equal', [
            await workspaceUsage(),
            rows[0]!.expected,
          ]);
          return equal[0]!.equal;
        },
        { timeout: 15_000 },
      )
      .toBe(true);
    // The leases the killed replica held ran again on batch-2 (once each as results).
    const { rows: attempts } = await batchDatabase.query<{ retried: string }>(
      'SELECT count(*) FILTER (WHERE attempts > 1)::text AS retried FROM batch_requests WHERE batch_id = $1',
      [id],
    );
    await batchDatabase.end();
    expect(Number(attempts[0]!.retried)).toBeGreaterThanOrEqual(heldAtDeath);
    await read(id);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const { rows: still } = await management.query<{ equal: boolean }>('SELECT $1::numeric = $2::numeric AS equal', [
      await workspaceUsage(),
      rows[0]!.expected,
    ]);
    expect(still[0]!.equal).toBe(true);
    await run.restartProcess('batch-1');
    // Its polls wait up to 60 + 30 + 120 s on a loaded machine: the test's own bound covers them.
  }, 240_000);

  it('answers 502 (spec §4.1: batch service unavailable) while no batch replica runs, and serves again once one is back', async () => {
    run.process('batch-1').child.kill('SIGKILL');
    run.process('batch-2').child.kill('SIGKILL');
    await expect.poll(async () => (await call('/batches?limit=1')).status, { timeout: 30_000, interval: 200 }).toBe(502);
    const refused = await call('/batches/batch_00000000000000000000000000000000');
    expect(refused.status).toBe(502);
    expect(refused.body.error).toMatchObject({ code: 502, metadata: { retryable: true } });
    await run.restartProcess('batch-1');
    await run.restartProcess('batch-2');
    await expect.poll(async () => (await call('/batches?limit=1')).status, { timeout: 30_000, interval: 200 }).toBe(200);
  }, 120_000);
});
