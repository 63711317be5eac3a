import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { anthropicBetasOf } from './anthropic-beta.js';
import { streamWarningHeaderOf, WARNING_HEADER, warningHeaderOf } from './gateway-warnings.js';

describe('anthropicBetasOf', () => {
  it('reads comma-separated and repeated headers, without duplicates', () => {
    expect(anthropicBetasOf({})).toBeUndefined();
    expect(anthropicBetasOf({ 'anthropic-beta': ' a-1, b-2 ,,a-1' })).toEqual(['a-1', 'b-2']);
    expect(anthropicBetasOf({ 'anthropic-beta': ['a-1', 'c-3,b-2'] })).toEqual(['a-1', 'c-3', 'b-2']);
    expect(anthropicBetasOf({ 'anthropic-beta': ' , ' })).toBeUndefined();
  });

  it('refuses what cannot be a beta name, and more than 64', () => {
    expect(() => anthropicBetasOf({ 'anthropic-beta': 'not a beta' })).toThrow(GatewayError);
    const many = Array.from({ length: 65 }, (_, index) => `b-${index}`).join(',');
    expect(() => anthropicBetasOf({ 'anthropic-beta': many })).toThrow(/at most 64/);
  });
});

describe('the x-gateway-warning header', () => {
  it("repeats a message's top-level gateway_warnings, and nothing else", () => {
    expect(warningHeaderOf(JSON.stringify({ id: 'm', gateway_warnings: ['a was left out', 'b was not sent'] }))).toEqual({
      [WARNING_HEADER]: 'a was left out; b was not sent',
    });
    expect(warningHeaderOf(JSON.stringify({ id: 'm' }))).toBeUndefined();
    // The key inside a tool's input is not the answer's.
    const nested = { content: [{ type: 'tool_use', input: { gateway_warnings: ['x'] } }] };
    expect(warningHeaderOf(JSON.stringify(nested))).toBeUndefined();
    expect(warningHeaderOf(JSON.stringify({ gateway_warnings: ['café\nx'] }))).toEqual({ [WARNING_HEADER]: 'caf??x' });
  });

  it("reads a stream's message_start", () => {
    const start = { type: 'message_start', message: { id: 'm', gateway_warnings: ['a was left out'] } };
    const packet = `event: message_start\ndata: ${JSON.stringify(start)}\n\nevent: ping\ndata: {"type":"ping"}\n\n`;
    expect(streamWarningHeaderOf(packet)).toEqual({ [WARNING_HEADER]: 'a was left out' });
    expect(streamWarningHeaderOf('event: message_start\ndata: {"type":"message_start","message":{}}\n\n')).toBeUndefined();
  });
});
