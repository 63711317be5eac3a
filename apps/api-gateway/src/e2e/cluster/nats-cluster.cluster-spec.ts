import { IsolatedStackRun, type IsolatedStack } from '@gw/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { gatewayResends, Ledger, loadConnections, report, startLoad, type Outcome, usageDelivered, usageStreamState } from './chat-load.js';

/*
 * Issue 36: the whole stack on a 3-node NATS cluster with JETSTREAM_REPLICAS=3, under load
 * while the nodes restart one by one (a StatefulSet's rolling upgrade) and while the USAGE
 * stream's leader is killed. 8 connections by default, not the 32: the machine has 2 shared cores
 * and every service, the simulator and three nats-servers run on them.
 */

const CONNECTIONS = loadConnections();
/** Load before the first and after the last fault: the answers around it count too. */
const SETTLE_MS = 3_000;
/** How long a node stays down: long enough for every client on it to notice and move. */
const DOWN_MS = 3_000;

const run = new IsolatedStackRun('cluster');
let stack: IsolatedStack;
let ledger: Ledger;
let failed = false;
/** Every outcome of this file: management's ledger is the key's, across the tests. */
const allOutcomes: Outcome[] = [];

beforeAll(async () => {
  // As the bundled chart sets it: an answer waits out a stream leader's election (seconds, more on a loaded machine).
  stack = await run.start(new AbortController().signal, { natsNodes: 3, env: { USAGE_ACK_TIMEOUT_MS: '30000' } });
  ledger = await Ledger.open(stack);
}, 400_000);

afterEach(({ task }) => {
  if (task.result?.state === 'fail') failed = true;
});

afterAll(async () => {
  await ledger?.close();
  await run.teardown(failed);
  if (failed) console.error(`cluster stack logs kept in ${run.logDir}`);
}, 60_000);

/**
 * Runs the load around `fault`, then checks what the clients saw (nothing but retryable 503s)
 * and what management counted: every answered generation once at its answered cost, the key's
 * spend its ledger's sum, nothing left in the consumers, and a generation billed but not
 * answered only for a request that failed.
 */
async function underLoad(name: string, fault: () => Promise<void>, idempotent = false): Promise<void> {
  const billedUnansweredBefore = (await ledger.reconcile(allOutcomes)).billedUnanswered;
  const load = startLoad(stack, CONNECTIONS, { idempotent });
  let outcomes: Outcome[];
  try {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    await fault();
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  } finally {
    outcomes = await load.stop();
  }
  allOutcomes.push(...outcomes);
  const figures = report(outcomes);
  const delivered = await usageDelivered(stack);
  let books = await ledger.reconcile(allOutcomes);
  for (const deadline = Date.now() + 30_000; books.answeredMissingOrWrong > 0 && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    books = await ledger.reconcile(allOutcomes);
  }
  const resends = await gatewayResends(stack);
  console.log(`${name}: ${JSON.stringify({ ...figures, delivered, ...books, gatewayResends: resends })}`);
  expect(figures.answered).toBeGreaterThan(CONNECTIONS);
  expect(figures.onlyRetryable503s, JSON.stringify(figures.failed)).toBe(true);
  expect(delivered).toBe(true);
  expect(books).toMatchObject({ answeredMissingOrWrong: 0, ledgerSumEqualsSpend: true });
  // Billed but not answered: a request that failed, or one the gateway sent again after
  // its reply was lost with the node (the first generation is billed too; counted, not hidden).
  const all = report(allOutcomes);
  expect(books.billedUnanswered).toBeLessThanOrEqual(all.sent - all.answered + resends);
  if (idempotent) {
    // Retried with their keys: every request answered in the end, and not one generation billed
    // without its answer (a lost answer is replayed to the retry, never generated and billed again).
    const retries = outcomes.flatMap((outcome) => outcome.retried ?? []);
    console.log(`${name}: ${retries.length} retries with Idempotency-Key (${JSON.stringify(retries)})`);
    expect(figures.failed).toEqual({});
    expect(books.billedUnanswered - billedUnansweredBefore).toBe(0);
  }
}

describe('a 3-node NATS cluster under load', () => {
  it('holds USAGE and its consumers on three replicas', async () => {
    // The services create the stream and their consumers on start, without holding readiness.
    let state = await usageStreamState(stack).catch(() => undefined);
    for (let attempt = 0; !state && attempt < 40; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      state = await usageStreamState(stack).catch(() => undefined);
    }
    expect(state?.replicas).toBe(3);
    expect(Object.values(state!.consumers).map((consumer) => consumer.replicas)).toEqual([3, 3]);
  });

  it('a rolling restart of every node (SIGTERM, wait, start, current, next): no answer lost, every cent billed once', async () => {
    await underLoad('rolling restart', async () => {
      for (const node of run.natsCluster().nodes) {
        await node.stop('SIGTERM');
        await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
        await node.start();
        await node.waitCurrent();
      }
    });
  }, 300_000);

  it('SIGKILL of the USAGE stream leader: a new leader answers, no answer lost, every cent billed once', async () => {
    const { leader } = await usageStreamState(stack);
    expect(leader).toBeTruthy();
    await underLoad('leader killed', async () => {
      const node = run.natsCluster().node(leader!);
      await node.stop('SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
      // The survivors elect a new leader (stream info times out during the election).
      let newLeader: string | undefined;
      for (const deadline = Date.now() + 20_000; !newLeader && Date.now() < deadline;) {
        newLeader = (await usageStreamState(stack).catch(() => undefined))?.leader;
      }
      expect(newLeader).toBeTruthy();
      expect(newLeader).not.toBe(leader);
      await node.start();
      await node.waitCurrent();
    });
  }, 300_000);

  it('SIGKILL of each node in turn, clients retrying with Idempotency-Key: every request answered, none billed twice', async () => {
    await underLoad(
      'nodes killed, keyed retries',
      async () => {
        for (const node of run.natsCluster().nodes) {
          await node.stop('SIGKILL');
          await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
          await node.start();
          await node.waitCurrent();
        }
      },
      true,
    );
  }, 300_000);
});
