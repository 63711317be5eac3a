import { describe, expect, it } from 'vitest';
import { EndpointHealthTracker } from './endpoint-health.js';
import { SessionAffinity } from './session-affinity.js';

describe('SessionAffinity', () => {
  it('remembers a session per workspace and model, and forgets it after its TTL', async () => {
    const affinity = new SessionAffinity({ maxSessions: 10, ttlMs: 30 });
    affinity.remember('ws-1', 'm/a', 's-1', 'sim-b/x');
    expect(affinity.endpointFor('ws-1', 'm/a', 's-1')).toBe('sim-b/x');
    expect(affinity.endpointFor('ws-2', 'm/a', 's-1')).toBeUndefined();
    expect(affinity.endpointFor('ws-1', 'm/b', 's-1')).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(affinity.endpointFor('ws-1', 'm/a', 's-1')).toBeUndefined();
  });

  it('keeps at most maxSessions, dropping the least recently used', () => {
    const affinity = new SessionAffinity({ maxSessions: 2, ttlMs: 60_000 });
    affinity.remember('ws', 'm', 'old', 'a');
    affinity.remember('ws', 'm', 'mid', 'b');
    affinity.endpointFor('ws', 'm', 'old');
    affinity.remember('ws', 'm', 'new', 'c');
    expect(affinity.endpointFor('ws', 'm', 'mid')).toBeUndefined();
    expect(affinity.endpointFor('ws', 'm', 'old')).toBe('a');
  });
});

describe('EndpointHealthTracker', () => {
  it('is unhealthy after three retryable failures in a row, and healthy again 30 s after the last', () => {
    let now = 1_000;
    const health = new EndpointHealthTracker(() => now);
    for (let i = 0; i < 3; i++) health.recordFailure('e');
    expect(health.isHealthy('e')).toBe(false);
    now += 30_001;
    expect(health.isHealthy('e')).toBe(true);
    health.recordSuccess('e', 10);
    health.recordFailure('e');
    expect(health.isHealthy('e')).toBe(true);
  });

  it('smooths latency and throughput', () => {
    const health = new EndpointHealthTracker();
    health.recordSuccess('e', 100);
    health.recordSuccess('e', 200);
    expect(health.latencyMs('e')).toBeCloseTo(120);
    health.recordThroughput('e', 50, 1_000);
    expect(health.throughput('e')).toBe(50);
    health.recordThroughput('e', 0, 1_000); // nothing generated: no sample
    expect(health.throughput('e')).toBe(50);
  });
});
