import { describe, expect, it } from 'vitest';
import { cacheControlsOf, streamHitMarkerLength } from './cache-headers.js';

describe('cacheControlsOf', () => {
  it('is undefined when the request names no cache control (the common case)', () => {
    expect(cacheControlsOf({ 'content-type': 'application/json' })).toBeUndefined();
  });

  it('reads this gateway’s headers and OpenRouter’s spelling', () => {
    expect(cacheControlsOf({ 'x-service-cache': 'true', 'x-service-cache-ttl': '600' })).toEqual({ enabled: true, ttlSeconds: 600 });
    expect(cacheControlsOf({ 'x-openrouter-cache': '1', 'x-openrouter-cache-ttl': '30' })).toEqual({ enabled: true, ttlSeconds: 30 });
    expect(cacheControlsOf({ 'x-service-cache': 'false' })).toEqual({ enabled: false });
  });

  it('maps Cache-Control no-cache to a refresh, no-store to a bypass, private to private', () => {
    expect(cacheControlsOf({ 'cache-control': 'no-cache' })).toEqual({ directive: 'refresh' });
    expect(cacheControlsOf({ 'cache-control': 'No-Store, no-cache' })).toEqual({ directive: 'bypass' });
    expect(cacheControlsOf({ 'x-service-cache': 'true', 'cache-control': 'private' })).toEqual({ enabled: true, private: true });
  });

  it('refuses a value it cannot read', () => {
    expect(() => cacheControlsOf({ 'x-service-cache': 'maybe' })).toThrow(/true or false/);
    expect(() => cacheControlsOf({ 'x-service-cache-ttl': '0' })).toThrow(/whole number/);
    expect(() => cacheControlsOf({ 'x-service-cache-ttl': '1.5' })).toThrow(/whole number/);
  });
});

describe('streamHitMarkerLength', () => {
  const marker = ': cache HIT\n\n';

  it('finds the marker of a replayed stream', () => {
    expect(streamHitMarkerLength(new TextEncoder().encode(`${marker}data: {}\n\n`))).toBe(marker.length);
  });

  it('is 0 for any other stream', () => {
    expect(streamHitMarkerLength(new TextEncoder().encode('data: {}\n\n'))).toBe(0);
    expect(streamHitMarkerLength(new TextEncoder().encode(': ping\n\ndata: {}\n\n'))).toBe(0);
    expect(streamHitMarkerLength(new Uint8Array())).toBe(0);
  });
});
