import type { GuardrailPolicy } from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../catalog/catalog.service.js';
import { Prisma } from '../generated/prisma/client.js';
import { applyGuardrails } from './guardrail-filter.js';
import type { ModelChoice } from './route-types.js';

function endpoint(providerId: string): RoutableEndpoint {
  return {
    supportedParameters: new Set(),
    provider: { id: providerId, name: `${providerId} name`, format: 'openai', baseUrl: 'http://upstream', apiKey: 'sk' },
    upstreamModel: 'm',
    pricing: { prompt: new Prisma.Decimal(1), completion: new Prisma.Decimal(1), cachedPrompt: new Prisma.Decimal(1) },
  } as RoutableEndpoint;
}

const model = (id: string, ...providers: string[]): ModelChoice =>
  ({
    id,
    model: { config: { id, name: id, contextLength: 1000, supportedParameters: [], endpoints: [] }, endpoints: providers.map(endpoint) },
  }) as ModelChoice;

const guardrail = (overrides: Partial<GuardrailPolicy>): GuardrailPolicy => ({
  id: '00000000-0000-4000-8000-000000000001',
  name: 'policy',
  allowedModels: [],
  ignoredModels: [],
  allowedProviders: [],
  ignoredProviders: [],
  ...overrides,
});

const shape = (models: ModelChoice[]) => models.map((choice) => [choice.id, choice.model.endpoints.map((e) => e.provider.id)]);

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('no refusal');
}

describe('applyGuardrails', () => {
  const models = [model('a/one', 'p1', 'p2'), model('b/two', 'p1')];

  it('leaves the models alone without guardrails', () => {
    expect(shape(applyGuardrails(models, undefined))).toEqual([
      ['a/one', ['p1', 'p2']],
      ['b/two', ['p1']],
    ]);
  });

  it('drops denied providers by id or name, and the models left without an endpoint', () => {
    expect(shape(applyGuardrails(models, [guardrail({ ignoredProviders: ['P1'] })]))).toEqual([['a/one', ['p2']]]);
    expect(shape(applyGuardrails(models, [guardrail({ ignoredProviders: ['p1 name'] })]))).toEqual([['a/one', ['p2']]]);
  });

  it('keeps only allowed providers and models', () => {
    expect(shape(applyGuardrails(models, [guardrail({ allowedProviders: ['p1'] })]))).toEqual([
      ['a/one', ['p1']],
      ['b/two', ['p1']],
    ]);
    expect(shape(applyGuardrails(models, [guardrail({ allowedModels: ['b/two'] })]))).toEqual([['b/two', ['p1']]]);
    expect(shape(applyGuardrails(models, [guardrail({ ignoredModels: ['A/ONE'] })]))).toEqual([['b/two', ['p1']]]);
  });

  it('refuses with 403 naming the guardrail that left nothing', () => {
    const error = refusal(() =>
      applyGuardrails(models, [
        guardrail({ name: 'first', ignoredModels: ['b/two'] }),
        guardrail({ id: '00000000-0000-4000-8000-000000000002', name: 'second', ignoredProviders: ['p1', 'p2'] }),
      ]),
    );
    expect(error.status).toBe(403);
    expect(error.message).toContain('"second"');
    expect(error.metadata).toMatchObject({
      reason: 'guardrail_denied',
      guardrail_id: '00000000-0000-4000-8000-000000000002',
      guardrail_name: 'second',
    });
  });
});
