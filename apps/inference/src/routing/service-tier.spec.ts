import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { testEndpoint } from '../testing/test-endpoint.js';
import { reportedTier, requestedTier, tierFor, ultrafastRank, wireTier } from './service-tier.js';

const openai = testEndpoint('u', ['service_tier']);
const anthropic = testEndpoint('claude', ['service_tier'], 'anthropic');
const withTiers = (tiers: string[]) => ({ ...openai, serviceTiers: tiers });

describe('service tiers (spec §4.5)', () => {
  it("sends `fast` as priority, and OpenAI's own tiers as they are", () => {
    expect(tierFor(openai, 'fast')).toBe('priority');
    expect(tierFor(openai, 'flex')).toBe('flex');
    expect(tierFor(openai, 'default')).toBe('default');
  });

  it('sends `ultrafast` as the best tier the endpoint takes: ultrafast, then priority, then default', () => {
    expect(tierFor(withTiers(['default', 'priority', 'ultrafast']), 'ultrafast')).toBe('ultrafast');
    expect(tierFor(openai, 'ultrafast')).toBe('priority');
    expect(tierFor(withTiers(['auto', 'default']), 'ultrafast')).toBe('default');
    expect(tierFor(withTiers(['auto']), 'ultrafast')).toBeUndefined();
  });

  it('leaves out a tier the endpoint does not take', () => {
    expect(tierFor(withTiers(['auto', 'default']), 'flex')).toBeUndefined();
    expect(tierFor(anthropic, 'scale')).toBeUndefined();
  });

  it('spells the tier as Anthropic does: auto (priority capacity when available) or standard_only', () => {
    expect(wireTier('anthropic', tierFor(anthropic, 'fast')!)).toBe('auto');
    expect(wireTier('anthropic', tierFor(anthropic, 'default')!)).toBe('standard_only');
    expect(wireTier('openai', 'priority')).toBe('priority');
    expect(reportedTier('standard')).toBe('default');
    expect(reportedTier('priority')).toBe('priority');
    expect(reportedTier(undefined)).toBeNull();
  });

  it('ranks ultrafast endpoints first, then priority ones', () => {
    expect(ultrafastRank(withTiers(['ultrafast']))).toBe(0);
    expect(ultrafastRank(openai)).toBe(1);
    expect(ultrafastRank(withTiers(['default']))).toBe(2);
  });

  it("refuses a tier outside the spec's list", () => {
    expect(requestedTier({ service_tier: 'fast' })).toBe('fast');
    expect(requestedTier({ service_tier: null })).toBeUndefined();
    expect(() => requestedTier({ service_tier: 'turbo' })).toThrow(GatewayError);
  });
});
