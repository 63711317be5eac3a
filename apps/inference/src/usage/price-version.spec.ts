import { validUsageRecordedEvent } from '@gw/usage';
import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../catalog/catalog-snapshot.js';
import { parseCatalog } from '../catalog/catalog.loader.js';
import { insertGenerations } from '../generations/generation-rows.js';
import { chargeFor } from '../pricing/charge.js';
import { computeCost } from '../pricing/cost.js';
import type { RouteAttempt } from '../routing/route-types.js';
import { toUsageEvent } from './generation-usage-publisher.service.js';

const catalog = (prompt: string) =>
  parseCatalog({
    providers: [{ id: 'p', name: 'P', format: 'openai', baseUrl: 'https://p.example/v1', apiKey: 'k' }],
    models: [
      {
        id: 'a/m',
        name: 'M',
        contextLength: 1000,
        supportedParameters: [],
        endpoints: [{ provider: 'p', upstreamModel: 'm', pricing: { prompt, completion: '0.000002' } }],
      },
    ],
  });

/** The usage event of one generation on the endpoint of `version`, as JetStream's consumers parse it. */
function eventAt(prompt: string, version: number) {
  const endpoint = buildSnapshot(catalog(prompt), version).models.get('a/m')!.endpoints[0]!;
  const usage = { promptTokens: 10, completionTokens: 5, cachedTokens: 0, reasoningTokens: 0, estimated: false };
  const attempt = { endpoint, endpointKey: 'p/m', modelId: 'a/m', credential: { kind: 'gateway' } } as unknown as RouteAttempt;
  const event = toUsageEvent({
    generationId: `gen-${version}`,
    principal: {
      workspaceId: '6f1c2a4e-1b2c-4d3e-8f4a-1234567890ab',
      keyHash: 'a1'.repeat(32),
      userId: '0b6c3f0e-9d7a-4c1e-b2f3-5a6b7c8d9e0f',
    } as never,
    modelId: 'a/m',
    attempt,
    status: 'succeeded',
    usage: usage as never,
    charge: chargeFor(computeCost(endpoint.pricing, usage as never), false, '0'),
    latencyMs: 10,
  });
  return validUsageRecordedEvent(JSON.parse(JSON.stringify(event)));
}

describe('the price version of a generation', () => {
  it('travels from the catalog version that priced it to the generation row, with the cost at that price', () => {
    const before = eventAt('0.000001', 3);
    const after = eventAt('0.000004', 4);
    expect(before).toMatchObject({ priceVersion: 3, cost: '0.00002' });
    expect(after).toMatchObject({ priceVersion: 4, cost: '0.00005' });
    const row = insertGenerations([before!, after!]);
    expect(row.values![31]).toEqual([3, 4]);
    expect(row.values![13]).toEqual(['0.00002', '0.00005']);
  });
});
