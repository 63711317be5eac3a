import type { ResolvedByokCredential } from '@gw/contracts';
import { describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';
import { Prisma } from '../generated/prisma/client.js';
import { EndpointHealthTracker } from './endpoint-health.js';
import { DEFAULT_PREFERENCES, parseProviderPreferences } from './provider-preferences.js';
import { planRoute, type PlanInput } from './route-planner.js';
import type { ModelChoice, ProviderPreferences } from './route-types.js';

function endpoint(
  providerId: string,
  upstreamModel: string,
  prompt = '0.000001',
  completion = '0.000002',
  apiKey = 'sk-gw',
  supported = ['temperature'],
): RoutableEndpoint {
  return {
    supportedParameters: new Set(supported),
    provider: { id: providerId, name: providerId.toUpperCase(), format: 'openai', baseUrl: 'http://upstream', apiKey },
    upstreamModel,
    pricing: { prompt: new Prisma.Decimal(prompt), completion: new Prisma.Decimal(completion), cachedPrompt: new Prisma.Decimal(prompt) },
  };
}

function model(id: string, ...endpoints: RoutableEndpoint[]): ModelChoice {
  return { id, model: { config: { id, name: id, contextLength: 1000, supportedParameters: [], endpoints: [] }, endpoints } };
}

function credential(overrides: Partial<ResolvedByokCredential> & Pick<ResolvedByokCredential, 'id' | 'provider'>): ResolvedByokCredential {
  return {
    apiKey: `key-${overrides.id}`,
    isFallback: false,
    isByokOnly: false,
    isRequired: false,
    sortOrder: 0,
    allowedApiKeyHashes: null,
    allowedModels: null,
    allowedUserIds: null,
    ...overrides,
  };
}

const requester = { keyHash: 'a'.repeat(64), userId: 'user-1' };
const multi = model(
  'm/multi',
  endpoint('alpha', 'a-1', '0.000003'),
  endpoint('beta', 'b-1', '0.000001'),
  endpoint('gamma', 'g-1', '0.000002'),
);

function plan(overrides: Partial<Omit<PlanInput, 'preferences'>> & { preferences?: Partial<ProviderPreferences> } = {}) {
  return planRoute({
    models: [multi],
    credentials: [],
    requester,
    health: new EndpointHealthTracker(),
    ...overrides,
    preferences: { ...DEFAULT_PREFERENCES, ...overrides.preferences },
  });
}

const providers = (result: ReturnType<typeof plan>) => result.attempts.map((attempt) => attempt.endpoint.provider.id);

describe('planRoute', () => {
  it('keeps the catalog order by default, one gateway-key attempt per endpoint', () => {
    const result = plan();
    expect(providers(result)).toEqual(['alpha', 'beta', 'gamma']);
    expect(result.attempts.every((attempt) => attempt.credential.kind === 'gateway')).toBe(true);
    expect(result.strategy).toBe('default');
    expect(result.requested).toBe('m/multi');
  });

  it('puts provider.order first, in that order, then the others', () => {
    expect(providers(plan({ preferences: { order: ['gamma', 'BETA'] } }))).toEqual(['gamma', 'beta', 'alpha']);
  });

  it('keeps only the first choice when allow_fallbacks is false', () => {
    const result = plan({ preferences: { order: ['gamma'], allowFallbacks: false } });
    expect(providers(result)).toEqual(['gamma']);
    expect(result.candidates).toHaveLength(1);
  });

  it('filters with only and ignore (by id or display name)', () => {
    expect(providers(plan({ preferences: { only: ['beta', 'GAMMA'] } }))).toEqual(['beta', 'gamma']);
    expect(providers(plan({ preferences: { ignore: ['alpha'] } }))).toEqual(['beta', 'gamma']);
    expect(plan({ preferences: { only: ['nobody'] } }).attempts).toEqual([]);
  });

  it('sorts by catalog price (prompt + completion), cheapest first', () => {
    const result = plan({ preferences: { sort: 'price' } });
    expect(providers(result)).toEqual(['beta', 'gamma', 'alpha']);
    expect(result.strategy).toBe('sort:price');
  });

  it('sorts by measured latency and throughput, unmeasured endpoints last in catalog order', () => {
    const health = new EndpointHealthTracker();
    health.recordSuccess('gamma/g-1', 50);
    health.recordSuccess('beta/b-1', 200);
    expect(providers(plan({ health, preferences: { sort: 'latency' } }))).toEqual(['gamma', 'beta', 'alpha']);
    health.recordThroughput('beta/b-1', 100, 1000);
    expect(providers(plan({ health, preferences: { sort: 'throughput' } }))).toEqual(['beta', 'alpha', 'gamma']);
  });

  it('applies order over sort', () => {
    expect(providers(plan({ preferences: { sort: 'price', order: ['alpha'] } }))).toEqual(['alpha', 'beta', 'gamma']);
  });

  it('appends the models fallbacks after the requested model', () => {
    const other = model('m/other', endpoint('delta', 'd-1'));
    const result = plan({ models: [model('m/single', endpoint('alpha', 'a-1')), other] });
    expect(result.attempts.map((attempt) => attempt.modelId)).toEqual(['m/single', 'm/other']);
    expect(result.strategy).toBe('default+models');
    expect(result.requested).toBe('m/single');
  });

  it('applies allow_fallbacks false per model: the first endpoint of each', () => {
    const other = model('m/other', endpoint('delta', 'd-1'), endpoint('eps', 'e-1'));
    expect(providers(plan({ models: [multi, other], preferences: { allowFallbacks: false } }))).toEqual(['alpha', 'delta']);
  });

  describe('session stickiness', () => {
    it('starts on the endpoint the session last succeeded on', () => {
      const result = plan({ stickyEndpointKey: 'gamma/g-1' });
      expect(providers(result)).toEqual(['gamma', 'alpha', 'beta']);
      expect(result.strategy).toBe('sticky');
    });

    it('lets go of an endpoint that has become unhealthy', () => {
      const health = new EndpointHealthTracker();
      for (let i = 0; i < 3; i++) health.recordFailure('gamma/g-1');
      expect(providers(plan({ health, stickyEndpointKey: 'gamma/g-1' }))).toEqual(['alpha', 'beta', 'gamma']);
    });

    it('gives way to an explicit provider.order and to only/ignore', () => {
      expect(providers(plan({ stickyEndpointKey: 'gamma/g-1', preferences: { order: ['beta'] } }))).toEqual(['beta', 'alpha', 'gamma']);
      expect(providers(plan({ stickyEndpointKey: 'gamma/g-1', preferences: { ignore: ['gamma'] } }))).toEqual(['alpha', 'beta']);
    });
  });

  describe('BYOK', () => {
    const single = model('m/single', endpoint('alpha', 'a-1'));
    const kinds = (result: ReturnType<typeof plan>) =>
      result.attempts.map((attempt) => (attempt.credential.kind === 'byok' ? attempt.credential.credentialId : 'gateway'));

    it('tries prioritized keys by sort_order, then the gateway key, then fallback keys', () => {
      const credentials = [
        credential({ id: 'fb', provider: 'alpha', isFallback: true }),
        credential({ id: 'second', provider: 'alpha', sortOrder: 2 }),
        credential({ id: 'first', provider: 'alpha', sortOrder: 1 }),
        credential({ id: 'other-provider', provider: 'beta' }),
      ];
      const result = plan({ models: [single], credentials });
      expect(kinds(result)).toEqual(['first', 'second', 'gateway', 'fb']);
      expect(result.attempts[0]!.credential).toEqual({ kind: 'byok', credentialId: 'first', apiKey: 'key-first' });
    });

    it('never falls back to the gateway key when a key is byok-only', () => {
      const credentials = [
        credential({ id: 'only', provider: 'alpha', isByokOnly: true }),
        credential({ id: 'fb', provider: 'alpha', isFallback: true }),
      ];
      expect(kinds(plan({ models: [single], credentials }))).toEqual(['only', 'fb']);
    });

    it('uses a key only when its allow-lists admit the API key, the model and the user', () => {
      const credentials = [
        credential({ id: 'other-key', provider: 'alpha', allowedApiKeyHashes: ['b'.repeat(64)] }),
        credential({ id: 'this-key', provider: 'alpha', allowedApiKeyHashes: [requester.keyHash], sortOrder: 1 }),
        credential({ id: 'other-model', provider: 'alpha', allowedModels: ['m/else'] }),
        credential({ id: 'upstream-model', provider: 'alpha', allowedModels: ['a-1'], sortOrder: 2 }),
        credential({ id: 'other-user', provider: 'alpha', allowedUserIds: ['user-2'] }),
        credential({ id: 'this-user', provider: 'alpha', allowedUserIds: ['user-1'], sortOrder: 3 }),
        // A byok-only key that does not admit the request does not stop the gateway key.
        credential({ id: 'byok-only-elsewhere', provider: 'alpha', isByokOnly: true, allowedModels: ['m/else'] }),
      ];
      expect(kinds(plan({ models: [single], credentials }))).toEqual(['this-key', 'upstream-model', 'this-user', 'gateway']);
    });

    it('has no gateway attempt on a provider the gateway holds no key for', () => {
      const keyless = model('m/keyless', endpoint('alpha', 'a-1', '0.000001', '0.000002', ''));
      expect(kinds(plan({ models: [keyless] }))).toEqual([]);
      expect(kinds(plan({ models: [keyless], credentials: [credential({ id: 'mine', provider: 'alpha' })] }))).toEqual(['mine']);
    });
  });
});

describe('planRoute with parameters', () => {
  const mixed = model(
    'm/mixed',
    endpoint('plain', 'p-1', undefined, undefined, undefined, ['temperature']),
    endpoint('rich', 'r-1', undefined, undefined, undefined, ['temperature', 'top_k']),
  );

  it('keeps every endpoint by default (the unsupported parameter is dropped from the call) and remembers what was asked', () => {
    const result = plan({ models: [mixed], requestedParameters: ['temperature', 'top_k'] });
    expect(providers(result)).toEqual(['plain', 'rich']);
    expect(result.requestedParameters).toEqual(['temperature', 'top_k']);
  });

  it('skips endpoints lacking a requested parameter with require_parameters', () => {
    const result = plan({ models: [mixed], requestedParameters: ['temperature', 'top_k'], preferences: { requireParameters: true } });
    expect(providers(result)).toEqual(['rich']);
    expect(plan({ models: [mixed], requestedParameters: ['min_p'], preferences: { requireParameters: true } }).candidates).toEqual([]);
  });
});

describe('parseProviderPreferences', () => {
  it('reads the routing keys and ignores the rest', () => {
    expect(
      parseProviderPreferences({
        order: ['a'],
        allow_fallbacks: false,
        only: ['b'],
        ignore: ['c'],
        sort: 'latency',
        require_parameters: true,
        data_collection: 'deny',
      }),
    ).toEqual({
      order: ['a'],
      allowFallbacks: false,
      only: ['b'],
      ignore: ['c'],
      sort: 'latency',
      partition: 'model',
      requireParameters: true,
    });
    expect(parseProviderPreferences(undefined)).toEqual(DEFAULT_PREFERENCES);
    expect(parseProviderPreferences({ sort: { by: 'throughput' } }).sort).toBe('throughput');
  });

  it.each([
    ['not an object', 'fast'],
    ['order of numbers', { order: [1] }],
    ['unknown sort', { sort: 'random' }],
    ['allow_fallbacks as a string', { allow_fallbacks: 'no' }],
  ])('refuses %s with 400', (_name, value) => {
    expect(() => parseProviderPreferences(value)).toThrow(expect.objectContaining({ status: 400, errorType: 'invalid_request' }));
  });

  describe('service tier and sort partition', () => {
    it('puts endpoints with a priority tier first for ultrafast, unless an order was given', () => {
      const tiered = model(
        'm/tiers',
        { ...endpoint('alpha', 'a-1'), serviceTiers: ['default'] },
        { ...endpoint('beta', 'b-1'), serviceTiers: ['default', 'priority'] },
        { ...endpoint('gamma', 'g-1'), serviceTiers: ['ultrafast'] },
      );
      expect(providers(plan({ models: [tiered], serviceTier: 'ultrafast' }))).toEqual(['gamma', 'beta', 'alpha']);
      expect(providers(plan({ models: [tiered], serviceTier: 'priority' }))).toEqual(['alpha', 'beta', 'gamma']);
      expect(providers(plan({ models: [tiered], serviceTier: 'ultrafast', preferences: { order: ['alpha'] } }))[0]).toBe('alpha');
    });

    it('sorts model by model by default, and every endpoint together with partition none', () => {
      const second = model('m/second', endpoint('delta', 'd-1', '0.0000001'));
      const byModel = plan({ models: [multi, second], preferences: { sort: 'price' } });
      expect(providers(byModel)).toEqual(['beta', 'gamma', 'alpha', 'delta']);
      const together = plan({ models: [multi, second], preferences: { sort: 'price', partition: 'none' } });
      expect(providers(together)).toEqual(['delta', 'beta', 'gamma', 'alpha']);
      expect(together.strategy).toBe('sort:price+models:partition-none');
    });

    it('reads the deprecated route alias as the partition; provider.sort.partition wins', () => {
      expect(parseProviderPreferences(undefined, 'sort').partition).toBe('none');
      expect(parseProviderPreferences({ sort: 'price' }, 'fallback').partition).toBe('model');
      expect(parseProviderPreferences({ sort: { by: 'price', partition: 'model' } }, 'sort').partition).toBe('model');
      expect(parseProviderPreferences({ sort: { by: 'price', partition: 'none' } }).partition).toBe('none');
      expect(() => parseProviderPreferences(undefined, 'random')).toThrow(/route must be/);
      expect(() => parseProviderPreferences({ sort: { by: 'price', partition: 'all' } })).toThrow(/partition/);
    });
  });
});
