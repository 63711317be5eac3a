import { describe, expect, it } from 'vitest';
import { parseRequestFailedEvents, validRequestFailedEvent } from './request-failed-event.js';

const event = {
  failureId: '33333333-3333-4333-8333-333333333333',
  requestId: 'req-1',
  workspaceId: '11111111-1111-4111-8111-111111111111',
  keyHash: 'a'.repeat(64),
  userId: '22222222-2222-4222-8222-222222222222',
  model: 'sim/gpt-4o-mini',
  errorType: 'provider_unavailable',
  status: 502,
  createdAt: '2026-11-29T01:02:03.456Z',
};
const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

describe('request failed events', () => {
  it('keeps a valid event with its declared properties only', () => {
    expect(validRequestFailedEvent({ ...event, extra: 'dropped' })).toEqual(event);
    expect(parseRequestFailedEvents(bytes(event))).toEqual([event]);
  });

  it('refuses an unknown error type, a status outside 400-599, a bad id, hash or time', () => {
    for (const bad of [
      { errorType: 'teapot' },
      { status: 302 },
      { status: 600 },
      { failureId: 'x' },
      { keyHash: 'A'.repeat(64) },
      { createdAt: '2026-11-29' },
      { workspaceId: undefined },
      { model: 'm'.repeat(201) },
    ])
      expect(validRequestFailedEvent({ ...event, ...bad }), JSON.stringify(bad)).toBeNull();
  });

  it('leaves an invalid member of a batch out and reports it; a message with nothing valid is poison', () => {
    const invalid: number[] = [];
    expect(parseRequestFailedEvents(bytes({ events: [{ ...event, status: 1 }, event] }), (index) => invalid.push(index))).toEqual([event]);
    expect(invalid).toEqual([0]);
    expect(parseRequestFailedEvents(bytes({ events: [] }))).toBeNull();
    expect(parseRequestFailedEvents(new TextEncoder().encode('not json'))).toBeNull();
  });
});
