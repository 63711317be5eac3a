import { GatewayError } from '@gw/errors';
import { metricsRegistry } from '@gw/metrics';
import { describe, expect, it } from 'vitest';
import { initSignatureMetrics, recordSignature, recordSignatureFailure } from './signing-metrics.js';

const sample = async (outcome: string) => {
  const line = (await metricsRegistry.metrics())
    .split('\n')
    .find((entry) => entry.startsWith(`intern_signatures_total{outcome="${outcome}"}`));
  return Number(line?.split(' ').at(-1));
};

describe('intern_signatures_total (issue 16)', () => {
  it('counts signatures by outcome, every outcome present from the start', async () => {
    initSignatureMetrics();
    for (const outcome of ['signed', 'rate_limited', 'refused', 'error']) expect(await sample(outcome)).toBe(0);
    recordSignature();
    recordSignature();
    recordSignatureFailure(new GatewayError(429, 'Too many turns'));
    recordSignatureFailure(new GatewayError(403, 'Signing needs a personal identity'));
    recordSignatureFailure(new GatewayError(404, 'No such intern'));
    recordSignatureFailure(new Error('boom'));
    expect(await sample('signed')).toBe(2);
    expect(await sample('rate_limited')).toBe(1);
    expect(await sample('refused')).toBe(2);
    expect(await sample('error')).toBe(1);
  });
});
