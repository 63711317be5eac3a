import { metricsRegistry } from '@gw/metrics';
import { describe, expect, it } from 'vitest';
import { EndpointHealthTracker } from './endpoint-health.js';
import { registerEndpointHealthGauges } from './routing-metrics.js';

describe('endpoint health gauges (issue 16)', () => {
  it('read the tracker at each scrape, per provider and upstream model, never a BYOK credential', async () => {
    let now = 1_000_000;
    const health = new EndpointHealthTracker(() => now);
    registerEndpointHealthGauges(health);
    health.recordSuccess('sim-openai/gpt-4o-mini', 250);
    health.recordThroughput('sim-openai/gpt-4o-mini', 100, 2_000);
    for (let failure = 0; failure < 3; failure++) health.recordFailure('sim-anthropic/claude');
    health.coolDown('sim-anthropic/claude|gateway', 5_000);
    health.coolDown('sim-anthropic/claude|byok-credential-1', 9_000);
    now += 1_000;

    const text = await metricsRegistry.metrics();
    expect(text).toContain('inference_endpoint_healthy{provider="sim-openai",upstream_model="gpt-4o-mini"} 1');
    expect(text).toContain('inference_endpoint_healthy{provider="sim-anthropic",upstream_model="claude"} 0');
    expect(text).toContain('inference_endpoint_consecutive_failures{provider="sim-anthropic",upstream_model="claude"} 3');
    expect(text).toContain('inference_endpoint_latency_seconds{provider="sim-openai",upstream_model="gpt-4o-mini"} 0.25');
    expect(text).toContain('inference_endpoint_throughput_tokens_per_second{provider="sim-openai",upstream_model="gpt-4o-mini"} 50');
    // Three failures in a row cooled it for 30 s (the longer of that and the provider's 5 s wait).
    expect(text).toContain('inference_endpoint_cooldown_seconds{provider="sim-anthropic",upstream_model="claude"} 29');
    expect(text).toContain('inference_endpoint_cooling{provider="sim-anthropic",upstream_model="claude",reason="failing"} 1');
    expect(text).not.toContain('byok-credential-1');

    health.recordSuccess('sim-anthropic/claude', 100);
    now += 30_000;
    expect(await metricsRegistry.metrics()).toContain('inference_endpoint_healthy{provider="sim-anthropic",upstream_model="claude"} 1');
  });
});
