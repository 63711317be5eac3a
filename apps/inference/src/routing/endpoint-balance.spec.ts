import type { ResolvedByokCredential } from '@gw/contracts';
import { describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';
import { testEndpoint, testModel } from '../testing/test-endpoint.js';
import { balancedOrder, weightedOrder } from './endpoint-balance.js';
import { EndpointHealthTracker } from './endpoint-health.js';
import { DEFAULT_PREFERENCES } from './provider-preferences.js';
import { planRoute } from './route-planner.js';
import { cooldownKeyOf, type ProviderPreferences } from './route-types.js';

/** mulberry32: the same draws on every run, so the shares below are exact, never flaky. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const DRAWS = 4_000;

function endpointOn(provider: string, fields: Partial<RoutableEndpoint> = {}): RoutableEndpoint {
  const endpoint = testEndpoint(`${provider}-model`);
  return { ...endpoint, provider: { ...endpoint.provider, id: provider, name: provider }, ...fields };
}

/** How often each provider answers first over `DRAWS` plans of one model. */
function firstShares(endpoints: RoutableEndpoint[], preferences: Partial<ProviderPreferences> = {}, seed = 7): Record<string, number> {
  const random = seeded(seed);
  const counts: Record<string, number> = {};
  for (let draw = 0; draw < DRAWS; draw++) {
    const plan = planRoute({
      models: [{ id: 'm/balanced', model: { ...testModel(endpoints[0]!, 'm/balanced'), endpoints } }],
      preferences: { ...DEFAULT_PREFERENCES, ...preferences },
      credentials: [],
      requester: { keyHash: 'a'.repeat(64), userId: 'u' },
      health: new EndpointHealthTracker(),
      random,
    });
    const first = plan.attempts[0]!.endpoint.provider.id;
    counts[first] = (counts[first] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).map(([provider, count]) => [provider, count / DRAWS]));
}

describe('weighted endpoints', () => {
  it('puts each endpoint first in proportion to its weight (3:1), the other one after it as the fallback', () => {
    const shares = firstShares([endpointOn('east', { weight: 3 }), endpointOn('west', { weight: 1 })]);
    expect(shares.east).toBeGreaterThan(0.72);
    expect(shares.east).toBeLessThan(0.78);
    const plan = planRoute({
      models: [{ id: 'm', model: testModel(endpointOn('east', { weight: 3 })) }],
      preferences: DEFAULT_PREFERENCES,
      credentials: [],
      requester: { keyHash: 'a'.repeat(64), userId: 'u' },
      health: new EndpointHealthTracker(),
    });
    expect(plan.attempts).toHaveLength(1);
  });

  it('tries a lower priority first whatever the weights, drains weight 0, and keeps catalog order without weights', () => {
    expect(firstShares([endpointOn('backup', { priority: 1, weight: 100 }), endpointOn('primary', { weight: 1 })])).toEqual({ primary: 1 });
    expect(firstShares([endpointOn('drained', { weight: 0 }), endpointOn('live', { weight: 1 })])).toEqual({ live: 1 });
    expect(firstShares([endpointOn('first'), endpointOn('second')])).toEqual({ first: 1 });
  });

  it('leaves the order to the client when it gives provider.order or provider.sort', () => {
    const endpoints = [endpointOn('east', { weight: 3 }), endpointOn('west', { weight: 1 })];
    expect(firstShares(endpoints, { order: ['west'] })).toEqual({ west: 1 });
    expect(firstShares(endpoints, { sort: 'price' })).toEqual({ east: 1 });
  });

  it('draws the order of the whole list, not only its head', () => {
    const random = seeded(11);
    let lastIsLight = 0;
    for (let draw = 0; draw < DRAWS; draw++) {
      const order = weightedOrder(['heavy', 'middle', 'light'], (item) => ({ heavy: 6, middle: 3, light: 1 })[item], random);
      if (order[2] === 'light') lastIsLight++;
    }
    // P(light last) = 1 - P(light first) - P(light second) = 1 - 0.1 - (0.6*1/4 + 0.3*1/7) = 0.707...
    expect(lastIsLight / DRAWS).toBeGreaterThan(0.68);
    expect(lastIsLight / DRAWS).toBeLessThan(0.74);
    expect(
      balancedOrder(
        ['b1', 'a1', 'b2'],
        (item) => (item.startsWith('a') ? 0 : 1),
        () => undefined,
        random,
      ),
    ).toEqual(['a1', 'b1', 'b2']);
  });
});

describe("a workspace endpoint's own credentials", () => {
  const credential = (id: string, provider = 'any-slug'): ResolvedByokCredential => ({
    id,
    provider,
    apiKey: `key-${id}`,
    isFallback: false,
    isByokOnly: false,
    isRequired: false,
    sortOrder: 0,
    allowedApiKeyHashes: null,
    allowedModels: null,
    allowedUserIds: null,
  });

  it('are the only keys tried, drawn by weight, and a credential the workspace no longer has is skipped', () => {
    const endpoint = endpointOn('workspace', {
      boundCredentials: [
        { credentialId: 'c-heavy', weight: 3 },
        { credentialId: 'c-light', weight: 1 },
        { credentialId: 'c-deleted', weight: 1000 },
      ],
    });
    const random = seeded(3);
    let heavyFirst = 0;
    for (let draw = 0; draw < DRAWS; draw++) {
      const plan = planRoute({
        models: [{ id: 'acme/llama', model: testModel(endpoint, 'acme/llama') }],
        preferences: DEFAULT_PREFERENCES,
        credentials: [credential('c-heavy'), credential('c-light'), credential('c-other')],
        requester: { keyHash: 'a'.repeat(64), userId: 'u' },
        health: new EndpointHealthTracker(),
        random,
      });
      const ids = plan.attempts.map((attempt) => (attempt.credential.kind === 'byok' ? attempt.credential.credentialId : 'gateway'));
      expect(ids.sort()).toEqual(['c-heavy', 'c-light']);
      if (plan.attempts[0]!.credential.kind === 'byok' && plan.attempts[0]!.credential.credentialId === 'c-heavy') heavyFirst++;
    }
    expect(heavyFirst / DRAWS).toBeGreaterThan(0.72);
    expect(heavyFirst / DRAWS).toBeLessThan(0.78);
  });
});

describe("an operator endpoint's own keys", () => {
  it('are drawn by weight, each an attempt with its own cooldown key', () => {
    const endpoint = endpointOn('azure-east', {
      gatewayKeys: [
        { index: 0, apiKey: 'sk-account-a', weight: 3 },
        { index: 1, apiKey: 'sk-account-b', weight: 1 },
      ],
    });
    const random = seeded(5);
    let firstIsA = 0;
    for (let draw = 0; draw < DRAWS; draw++) {
      const plan = planRoute({
        models: [{ id: 'm', model: testModel(endpoint, 'm') }],
        preferences: DEFAULT_PREFERENCES,
        credentials: [],
        requester: { keyHash: 'a'.repeat(64), userId: 'u' },
        health: new EndpointHealthTracker(),
        random,
      });
      expect(plan.attempts.map(cooldownKeyOf).sort()).toEqual([
        'azure-east/azure-east-model|gateway#0',
        'azure-east/azure-east-model|gateway#1',
      ]);
      if (plan.attempts[0]!.credential.apiKey === 'sk-account-a') firstIsA++;
    }
    expect(firstIsA / DRAWS).toBeGreaterThan(0.72);
    expect(firstIsA / DRAWS).toBeLessThan(0.78);
  });
});
