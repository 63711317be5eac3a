import type { TestProject } from 'vitest/node';
import '../provided-context.js';
import { IsolatedStackRun } from '@gw/stack';

/**
 * End-to-end tests: the real built services, gateway and simulator as child processes, on
 * databases and a nats-server of the run's own, with freshly seeded keys (ADR 0009).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const run = new IsolatedStackRun('e2e');
  try {
    project.provide('stack', await run.start(new AbortController().signal));
  } catch (error) {
    await run.teardown(true);
    throw new Error(`${(error as Error).message} (logs kept in ${run.logDir})`, { cause: error });
  }
  return () => run.teardown(false);
}
