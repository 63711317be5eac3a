import type { TestProject } from 'vitest/node';
import '../provided-context.js';
import { IsolatedStackRun } from '@gw/stack';

/** POST /v1/files' limit on the e2e stack. */
export const FILES_MAX_BYTES = 2 * 1024 * 1024;

/**
 * End-to-end tests: the real built services, gateway and simulator as child processes, on
 * databases and a nats-server of the run's own, with freshly seeded keys.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const run = new IsolatedStackRun('e2e');
  try {
    // A low file limit, so files.e2e-spec.ts reaches the 413 with a 2 MB file rather than 200 MB.
    project.provide('stack', await run.start(new AbortController().signal, { env: { FILES_MAX_BYTES: String(FILES_MAX_BYTES) } }));
  } catch (error) {
    await run.teardown(true);
    throw new Error(`${(error as Error).message} (logs kept in ${run.logDir})`, { cause: error });
  }
  return () => run.teardown(false);
}
