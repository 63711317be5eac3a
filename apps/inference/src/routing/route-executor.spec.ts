import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';
import { Prisma } from '../generated/prisma/client.js';
import { testModel } from '../testing/test-endpoint.js';
import { httpFailure, transportFailure } from '../upstream/upstream-failure.js';
import { EndpointHealthTracker } from './endpoint-health.js';
import { executeRoute } from './route-executor.js';
import { buildServiceMetadata } from './routing-metadata.js';
import type { AttemptCredential, RouteAttempt, RoutePlan } from './route-types.js';

function attempt(providerId: string, credential: AttemptCredential = { kind: 'gateway' }, modelId = 'm/x'): RouteAttempt {
  const endpoint: RoutableEndpoint = {
    provider: { id: providerId, name: `Name ${providerId}`, format: 'openai', baseUrl: 'http://upstream', apiKey: 'sk' },
    upstreamModel: 'up',
    pricing: { prompt: new Prisma.Decimal(0), completion: new Prisma.Decimal(0), cachedPrompt: new Prisma.Decimal(0) },
    supportedParameters: new Set(['temperature']),
  };
  return { modelId, model: testModel(endpoint, modelId), endpoint, endpointKey: `${providerId}/up`, credential };
}

function planOf(...attempts: RouteAttempt[]): RoutePlan {
  return { requested: 'm/x', strategy: 'default', candidates: attempts, attempts, requestedParameters: [] };
}

describe('executeRoute', () => {
  it('moves on after 429, 5xx, connect errors and timeouts, and reports attempt 4', async () => {
    const failures = [
      httpFailure('a', 429, 'slow down'),
      httpFailure('b', 503, 'down'),
      transportFailure('c', 'connect', 'refused'),
      transportFailure('d', 'timeout', 'timed out'),
    ];
    const plan = planOf(attempt('a'), attempt('b'), attempt('c'), attempt('d'), attempt('e'));
    const health = new EndpointHealthTracker();
    const outcome = await executeRoute(
      plan,
      async (current) => {
        const failure = failures.shift();
        if (failure) throw failure;
        return current.endpoint.provider.id;
      },
      health,
    );
    expect(outcome.result).toBe('e');
    expect(outcome.tracker.attemptCount).toBe(5);
    expect(health.latencyMs('e/up')).toBeGreaterThanOrEqual(0);

    const metadata = buildServiceMetadata(plan, outcome.tracker, 'eu-test');
    expect(metadata).toMatchObject({
      attempt: 5,
      is_byok: false,
      region: 'eu-test',
      requested: 'm/x',
      strategy: 'default',
      endpoints: { total: 5 },
    });
    expect(metadata.endpoints.available.map((entry) => entry.selected)).toEqual([false, false, false, false, true]);
    expect(metadata.endpoints.available[0]).toEqual({ model: 'm/x', provider: 'Name a', selected: false });
    expect(metadata.summary).toContain('#1 m/x via a (gateway key) failed: 429 rate_limit_exceeded');
    expect(metadata.summary).toContain('#5 m/x via e (gateway key) succeeded');
    expect(Number.isInteger(metadata.generation_time)).toBe(true);
  });

  it('stops at a failure that is the request’s fault (400) and throws its error', async () => {
    let calls = 0;
    const run = executeRoute(
      planOf(attempt('a'), attempt('b')),
      async () => {
        calls++;
        throw httpFailure('a', 400, 'bad field', 'context_length_exceeded');
      },
      new EndpointHealthTracker(),
    );
    await expect(run).rejects.toMatchObject({ status: 400, errorType: 'context_length_exceeded' });
    expect(calls).toBe(1);
  });

  it('throws the last failure when every attempt failed', async () => {
    const run = executeRoute(
      planOf(attempt('a'), attempt('b')),
      async (current) => {
        throw httpFailure(current.endpoint.provider.id, current.endpoint.provider.id === 'a' ? 500 : 429, undefined);
      },
      new EndpointHealthTracker(),
    );
    await expect(run).rejects.toMatchObject({ status: 429, errorType: 'rate_limit_exceeded' });
  });

  it('tries the next key after a provider refused a BYOK key (401), and marks is_byok by the key that answered', async () => {
    const byok = attempt('a', { kind: 'byok', credentialId: 'c1', apiKey: 'sk-mine' });
    const second = attempt('a', { kind: 'byok', credentialId: 'c2', apiKey: 'sk-other' });
    const plan = planOf(byok, second, attempt('a'));
    const outcome = await executeRoute(
      plan,
      async (current) => {
        if (current === byok) throw httpFailure('a', 401, 'bad key');
        return current.credential;
      },
      new EndpointHealthTracker(),
    );
    expect(outcome.attempt).toBe(second);
    expect(buildServiceMetadata(plan, outcome.tracker, 'r').is_byok).toBe(true);
  });

  it('does not retry a gateway-key 401 (the operator must fix it) nor an aborted call', async () => {
    let calls = 0;
    await expect(
      executeRoute(
        planOf(attempt('a'), attempt('b')),
        async () => {
          calls++;
          throw httpFailure('a', 401, 'bad key');
        },
        new EndpointHealthTracker(),
      ),
    ).rejects.toMatchObject({ status: 502 });
    await expect(
      executeRoute(
        planOf(attempt('a'), attempt('b')),
        async () => {
          calls++;
          throw transportFailure('a', 'aborted', 'call aborted');
        },
        new EndpointHealthTracker(),
      ),
    ).rejects.toBeInstanceOf(GatewayError);
    expect(calls).toBe(2);
  });

  it('marks an endpoint unhealthy after three retryable failures in a row', async () => {
    const health = new EndpointHealthTracker();
    for (let i = 0; i < 3; i++) {
      await executeRoute(
        planOf(attempt('a'), attempt('b')),
        async (current) => {
          if (current.endpoint.provider.id === 'a') throw httpFailure('a', 503, undefined);
          return 'ok';
        },
        health,
      );
    }
    expect(health.isHealthy('a/up')).toBe(false);
    expect(health.isHealthy('b/up')).toBe(true);
  });

  it('answers 404 when provider preferences left no endpoint', async () => {
    await expect(
      executeRoute(
        { requested: 'm/x', strategy: 'default', candidates: [], attempts: [], requestedParameters: [] },
        async () => 1,
        new EndpointHealthTracker(),
      ),
    ).rejects.toMatchObject({
      status: 404,
      errorType: 'not_found',
    });
  });

  describe("a provider's retry-after", () => {
    it('skips the endpoint (with that key) until the wait is over, then calls it again', async () => {
      let now = 1_000_000;
      const health = new EndpointHealthTracker(() => now);
      const calls: string[] = [];
      const call = async (current: RouteAttempt) => {
        calls.push(current.endpoint.provider.id);
        if (current.endpoint.provider.id === 'a' && calls.length === 1) throw httpFailure('a', 429, undefined, undefined, 20_000);
        return current.endpoint.provider.id;
      };
      expect((await executeRoute(planOf(attempt('a'), attempt('b')), call, health)).result).toBe('b');
      expect((await executeRoute(planOf(attempt('a'), attempt('b')), call, health)).result).toBe('b');
      expect(calls).toEqual(['a', 'b', 'b']);
      // The same endpoint through a workspace's own key is another account: not held.
      expect((await executeRoute(planOf(attempt('a', { kind: 'byok', credentialId: 'c1', apiKey: 'k' })), call, health)).result).toBe('a');
      now += 20_001;
      expect((await executeRoute(planOf(attempt('a'), attempt('b')), call, health)).result).toBe('a');
    });

    it('answers 429 with the shortest wait when every endpoint is waiting', async () => {
      const health = new EndpointHealthTracker(() => 5_000);
      const failing = async (current: RouteAttempt): Promise<string> => {
        throw httpFailure(current.endpoint.provider.id, 429, undefined, undefined, current.endpoint.provider.id === 'a' ? 30_000 : 7_500);
      };
      const first = executeRoute(planOf(attempt('a'), attempt('b')), failing, health);
      // The provider's own wait reaches the client (the gateway turns metadata.retry_after into Retry-After).
      await expect(first).rejects.toMatchObject({ status: 429, metadata: { retry_after: 8 } });
      let called = false;
      const second = executeRoute(
        planOf(attempt('a'), attempt('b')),
        async () => {
          called = true;
          return 'x';
        },
        health,
      );
      await expect(second).rejects.toMatchObject({
        status: 429,
        errorType: 'rate_limit_exceeded',
        metadata: { reason: 'upstream_rate_limited', retry_after: 8 },
      });
      expect(called).toBe(false);
    });
  });
});
