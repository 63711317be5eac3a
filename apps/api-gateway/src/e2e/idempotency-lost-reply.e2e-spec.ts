import { IsolatedStackRun, type IsolatedStack } from '@gw/testing';
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

/*
 * The case `Idempotency-Key` exists for: a generation answered by the provider and billed whose
 * answer never reached its client. A stack of its own, so its gateway and inference can be killed.
 * Nothing waits on a guessed delay: the provider's request count and the billing ledger are polled.
 */

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** The provider answers after 3 s: time to stop a process while the call is upstream. */
const DELAYED = { model: 'sim/gpt-4o-mini-delayed', messages: [{ role: 'user', content: 'Say hi' }] };
const DELAYED_UPSTREAM = 'gpt-4o-mini;latency=3000';

const run = new IsolatedStackRun('idempotency');
let stack: IsolatedStack;
let management: pg.Client;
let failed = false;

interface Outcome {
  status: number;
  text: string;
}

async function post(body: unknown, idempotencyKey: string): Promise<Outcome> {
  const response = await fetch(`${stack.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

async function ledger(): Promise<Array<{ id: string; cost: string }>> {
  const { rows } = await management.query<{ id: string; cost: string }>(
    'SELECT generation_id AS id, cost::text AS cost FROM usage_ledger WHERE key_hash = $1 ORDER BY generated_at',
    [sha256(stack.apiKey)],
  );
  return rows;
}

async function keyUsage(): Promise<string> {
  const { rows } = await management.query<{ usage: string }>('SELECT usage::text AS usage FROM api_keys WHERE hash = $1', [
    sha256(stack.apiKey),
  ]);
  return rows[0]!.usage;
}

async function reachedProvider(): Promise<number> {
  const response = await fetch(`${stack.simulatorUrl}/sim/streams?key=${encodeURIComponent(DELAYED_UPSTREAM)}`);
  return ((await response.json()) as { received: number }).received;
}

async function until(condition: () => Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What a client with retries does after a retryable failure: the same request and key again until it is answered. */
async function retryUntilAnswered(body: unknown, idempotencyKey: string): Promise<{ answer: Outcome; failures: number[] }> {
  const failures: number[] = [];
  const deadline = Date.now() + 90_000;
  for (;;) {
    const outcome = await post(body, idempotencyKey).catch(() => ({ status: 0, text: '' }));
    if (outcome.status === 200 || Date.now() > deadline) return { answer: outcome, failures };
    failures.push(outcome.status);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

beforeAll(async () => {
  stack = await run.start(new AbortController().signal, { env: { RPC_LIVENESS_TIMEOUT_MS: '8000' } });
  management = new pg.Client({ connectionString: stack.managementDatabaseUrl });
  await management.connect();
}, 400_000);

afterEach(({ task }) => {
  if (task.result?.state === 'fail') failed = true;
});

afterAll(async () => {
  await management?.end();
  await run.teardown(failed);
  if (failed) console.error(`idempotency stack logs kept in ${run.logDir}`);
}, 60_000);

describe('a billed answer lost on its way back', () => {
  it('the gateway holding it is killed: the retry gets that very answer and nothing is billed twice', async () => {
    const idempotencyKey = randomUUID();
    const before = await reachedProvider();
    const first = post(DELAYED, idempotencyKey).then(
      (outcome) => outcome,
      (error: Error) => ({ status: 0, text: error.message }),
    );
    await until(async () => (await reachedProvider()) > before, 'the chat to reach the provider');
    // The gateway stops while the provider works: inference's answer (and the billing) go on
    // without it, and the reply waits in the gateway's socket until the SIGKILL loses it.
    run.process('api-gateway').child.kill('SIGSTOP');
    try {
      await until(async () => (await ledger()).length === 1, 'the generation to be billed');
    } finally {
      await run.stopProcess('api-gateway', 'SIGKILL');
    }
    const lost = await first;
    expect(lost.status).toBe(0);
    const billed = await ledger();
    await run.restartProcess('api-gateway');

    const retried = await post(DELAYED, idempotencyKey);
    expect(retried.status).toBe(200);
    const answer = JSON.parse(retried.text) as { id: string; usage: { cost: number } };
    expect(answer.id).toBe(billed[0]!.id);
    // Still one generation, and the key paid for exactly it.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await ledger()).toEqual(billed);
    const { rows } = await management.query<{ equal: boolean }>('SELECT $1::numeric = $2::numeric AS equal', [
      await keyUsage(),
      billed[0]!.cost,
    ]);
    expect(rows[0]!.equal).toBe(true);
    expect(String(answer.usage.cost)).toBe(String(Number(billed[0]!.cost)));
  }, 240_000);

  it('the inference replica running it is killed: 503 replica_lost, and the retry with the key is answered and billed once', async () => {
    const billedBefore = (await ledger()).length;
    const idempotencyKey = randomUUID();
    const before = await reachedProvider();
    const first = post(DELAYED, idempotencyKey);
    await until(async () => (await reachedProvider()) > before, 'the chat to reach the provider');
    await run.stopProcess('inference', 'SIGKILL');
    await run.restartProcess('inference');
    const lost = await first;
    expect(lost.status).toBe(503);
    expect(JSON.parse(lost.text)).toMatchObject({ error: { metadata: { reason: 'replica_lost', retryable: true } } });

    // The dead replica's claim on the key lapses; the retry then runs the request, once.
    const { answer, failures } = await retryUntilAnswered(DELAYED, idempotencyKey);
    console.log(`retries before the answer: ${JSON.stringify(failures)}`);
    expect(answer.status).toBe(200);
    for (const status of failures) expect([0, 409, 503]).toContain(status);
    const { id } = JSON.parse(answer.text) as { id: string };
    await until(async () => (await ledger()).length > billedBefore, 'the retry to be billed');
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const billed = (await ledger()).slice(billedBefore);
    expect(billed.map((row) => row.id)).toEqual([id]);
  }, 240_000);
});
