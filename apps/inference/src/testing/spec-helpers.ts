import { createTlsMaterial, startSimulator, type RunningSimulator } from '@gw/provider-simulator';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateEnv } from '@gw/config';
import { afterAll, beforeAll, expect } from 'vitest';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';
import { InferenceEnv } from '../env.js';
import { Prisma } from '../generated/prisma/client.js';
import { UpstreamClient } from '../upstream/upstream-client.js';
import { UpstreamFailure } from '../upstream/upstream-failure.js';

/*
 * What the provider int-specs share (left out of the build, like every spec helper): the
 * provider simulator over real HTTP, an UpstreamClient to it, endpoints on it, and the
 * UpstreamFailure a call ends with.
 */

/** The parameters the simulator's OpenAI-style endpoints are declared to take. */
export const SIMULATOR_PARAMETERS = [
  'temperature',
  'top_p',
  'max_tokens',
  'stop',
  'seed',
  'n',
  'logprobs',
  'top_logprobs',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'reasoning',
];

export interface SimulatorUpstream {
  simulator: RunningSimulator;
  upstream: UpstreamClient;
  /** The client's environment (with `tls`: UPSTREAM_EXTRA_CA_FILE names the run's CA). */
  env: InferenceEnv;
}

/**
 * Starts the provider simulator and an UpstreamClient for the enclosing `describe` (beforeAll:
 * a spec's own beforeAll registered after this call runs after it), closes both afterwards.
 * `env`: InferenceEnv variables for the client (timeouts). `tls`: the simulator also serves
 * HTTPS (`simulator.tlsUrl`) with a certificate of a CA made for this run, which the client's
 * environment trusts through UPSTREAM_EXTRA_CA_FILE, as the stack's inference does.
 */
export function simulatorUpstream(env: Record<string, string> = {}, options: { tls?: boolean } = {}): SimulatorUpstream {
  const harness = {} as SimulatorUpstream;
  let caDir: string | undefined;
  beforeAll(async () => {
    const tls = options.tls ? await createTlsMaterial() : undefined;
    harness.simulator = await startSimulator(tls ? { tls } : {});
    const trust: Record<string, string> = {};
    if (tls) {
      caDir = mkdtempSync(join(tmpdir(), 'sim-ca-'));
      writeFileSync(join(caDir, 'ca.pem'), tls.ca);
      trust.UPSTREAM_EXTRA_CA_FILE = join(caDir, 'ca.pem');
    }
    harness.env = validateEnv(InferenceEnv, { DATABASE_URL: 'postgresql://unused/x', ...trust, ...env });
    harness.upstream = new UpstreamClient(harness.env);
  });
  afterAll(async () => {
    await harness.upstream?.onModuleDestroy();
    await harness.simulator?.close();
    if (caDir) rmSync(caDir, { recursive: true, force: true });
  });
  return harness;
}

/** A free endpoint of `provider` serving `upstreamModel` (a simulator model id with its `;status=...` knobs). */
export function simulatorEndpoint(
  provider: RoutableEndpoint['provider'],
  upstreamModel: string,
  supportedParameters: readonly string[] = SIMULATOR_PARAMETERS,
): RoutableEndpoint {
  return {
    provider,
    upstreamModel,
    pricing: { prompt: new Prisma.Decimal(0), completion: new Prisma.Decimal(0), cachedPrompt: new Prisma.Decimal(0) },
    supportedParameters: new Set(supportedParameters),
  };
}

/** The UpstreamFailure `promise` rejects with (the test fails if it resolves or rejects otherwise). */
export async function failureOf(promise: Promise<unknown>): Promise<UpstreamFailure> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(UpstreamFailure);
  return error as UpstreamFailure;
}
