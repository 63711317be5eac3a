import { describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';
import { testEndpoint, testModel } from '../testing/test-endpoint.js';
import { transportFailure } from '../upstream/upstream-failure.js';
import { CooldownMirror } from './cooldown-board.js';
import { parseMember } from './cooldown-store.js';
import { EndpointHealthTracker } from './endpoint-health.js';
import { executeRoute } from './route-executor.js';
import type { RouteAttempt, RoutePlan } from './route-types.js';

function attemptOn(provider: string): RouteAttempt {
  const base = testEndpoint('up');
  const endpoint: RoutableEndpoint = { ...base, provider: { ...base.provider, id: provider } };
  return { modelId: 'm/x', model: testModel(endpoint, 'm/x'), endpoint, endpointKey: `${provider}/up`, credential: { kind: 'gateway' } };
}

function planOf(...attempts: RouteAttempt[]): RoutePlan {
  return { requested: 'm/x', strategy: 'default', candidates: attempts, attempts, requestedParameters: [] };
}

describe('endpoint cooldowns', () => {
  it('three failures in a row on one replica cool the endpoint on the board every replica reads', () => {
    let now = 1_000;
    const board = new CooldownMirror(() => now);
    const here = new EndpointHealthTracker(() => now, board, 30_000);
    const elsewhere = new EndpointHealthTracker(() => now, board, 30_000);
    here.recordFailure('bad/up', { errorType: 'provider_unavailable', status: 502 });
    here.recordFailure('bad/up', { errorType: 'provider_unavailable', status: 502 });
    expect(elsewhere.isHealthy('bad/up')).toBe(true);
    here.recordFailure('bad/up', { errorType: 'provider_unavailable', status: 502 });
    expect(elsewhere.isHealthy('bad/up')).toBe(false);
    expect(elsewhere.describe('bad/up')).toMatchObject({
      coolingForMs: 30_000,
      coolingReason: 'failing',
      coolingUntil: 31_000,
      consecutiveFailures: 0,
      recentFailures: [],
    });
    expect(here.describe('bad/up').recentFailures).toHaveLength(3);
    expect([...elsewhere.endpoints()].map((entry) => entry.endpointKey)).toEqual(['bad/up']);
    now += 30_001;
    expect(elsewhere.isHealthy('bad/up')).toBe(true);
  });

  it("a fixture that fails on purpose (the catalog's failsOnPurpose) cools nobody: later callers keep its order", async () => {
    const board = new CooldownMirror();
    const tracker = new EndpointHealthTracker(Date.now, board);
    const fixture = { ...attemptOn('fault'), endpoint: { ...attemptOn('fault').endpoint, failsOnPurpose: true } };
    const called: string[] = [];
    const call = async (attempt: RouteAttempt) => {
      called.push(attempt.endpoint.provider.id);
      if (attempt.endpoint.provider.id !== 'good') throw transportFailure(attempt.endpoint.provider.id, 'connect', 'could not be reached');
      return 'ok';
    };
    for (let round = 0; round < 4; round += 1) await executeRoute(planOf(fixture, attemptOn('good')), call, tracker);
    expect(board.coolingFor('fault/up')).toBe(0);
    expect(called).toEqual(['fault', 'good', 'fault', 'good', 'fault', 'good', 'fault', 'good']);
    for (let round = 0; round < 3; round += 1) await executeRoute(planOf(attemptOn('bad'), attemptOn('good')), call, tracker);
    expect(board.coolingFor('bad/up')).toBeGreaterThan(0);
  });

  it('a replica tries a cooled endpoint after the others, and still tries it when nothing else answers', async () => {
    const board = new CooldownMirror();
    board.coolDown({ key: 'bad/up', until: Date.now() + 60_000, reason: 'failing', failures: 3 });
    const tracker = new EndpointHealthTracker(Date.now, board);
    const called: string[] = [];
    const outcome = await executeRoute(
      planOf(attemptOn('bad'), attemptOn('good')),
      async (attempt) => {
        called.push(attempt.endpoint.provider.id);
        return 'ok';
      },
      tracker,
    );
    expect(outcome.attempt.endpoint.provider.id).toBe('good');
    expect(called).toEqual(['good']);
    const lastResort = await executeRoute(
      planOf(attemptOn('bad'), attemptOn('good')),
      async (attempt) => {
        called.push(attempt.endpoint.provider.id);
        if (attempt.endpoint.provider.id === 'good') throw transportFailure('good', 'connect', 'could not be reached');
        return 'ok';
      },
      tracker,
    );
    expect(lastResort.attempt.endpoint.provider.id).toBe('bad');
    expect(called).toEqual(['good', 'good', 'bad']);
  });

  it('keeps the later of two cooldowns of one key, and reads only well-formed entries of the store', () => {
    const board = new CooldownMirror(() => 0);
    board.coolDown({ key: 'k', until: 500, reason: 'retry_after' });
    board.coolDown({ key: 'k', until: 100, reason: 'failing' });
    expect(board.cooldown('k')).toMatchObject({ until: 500, reason: 'retry_after' });
    expect(parseMember('{"key":"k","reason":"failing","failures":3}')).toEqual({ key: 'k', reason: 'failing', failures: 3 });
    expect(parseMember('{"key":"k","reason":"bored"}')).toBeUndefined();
    expect(parseMember('not json')).toBeUndefined();
  });
});
