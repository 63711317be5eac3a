import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { RESPONSES_FRAMING } from './responses-framing.js';

const frame = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`;

describe('Responses stream framing in the gateway', () => {
  it('adds nothing after a clean end', () => {
    expect(RESPONSES_FRAMING.end).toBe('');
  });

  it('ends a stream the gateway saw fail with error then response.failed: the next sequence numbers, the first response marked failed, the canonical type', () => {
    const first = frame({
      type: 'response.created',
      sequence_number: 0,
      response: { id: 'resp_1', object: 'response', model: 'sim/gpt-4o-mini', status: 'in_progress', output: [] },
    });
    const last = frame({ type: 'response.output_text.delta', sequence_number: 7, delta: 'x' });
    const failure = RESPONSES_FRAMING.errorFrame(first, new GatewayError(504, 'The stream stalled', { errorType: 'timeout' }), last);
    const [errorEvent, failedEvent, rest] = failure.split('\n\n');
    expect(rest).toBe('');
    expect(errorEvent!.startsWith('event: error\ndata: ')).toBe(true);
    expect(JSON.parse(errorEvent!.split('\n')[1]!.slice('data: '.length))).toEqual({
      type: 'error',
      sequence_number: 8,
      code: 'timeout',
      message: 'The stream stalled',
      param: null,
    });
    expect(failedEvent!.startsWith('event: response.failed\ndata: ')).toBe(true);
    const data = JSON.parse(failedEvent!.split('\n')[1]!.slice('data: '.length)) as Record<string, any>;
    expect(data).toMatchObject({
      type: 'response.failed',
      sequence_number: 9,
      response: {
        id: 'resp_1',
        status: 'failed',
        error_type: 'timeout',
        error: { code: 'timeout', message: 'The stream stalled', metadata: { error_type: 'timeout' } },
      },
    });
    // Without output, clients keep the items the stream announced.
    expect(data.response).not.toHaveProperty('output');
  });

  it('numbers on from the last event of a packet that holds several frames', () => {
    const first = frame({ type: 'response.created', sequence_number: 0, response: { id: 'resp_1', status: 'in_progress' } });
    const last =
      frame({ type: 'response.output_text.delta', sequence_number: 6, delta: 'x' }) +
      frame({ type: 'response.output_text.delta', sequence_number: 7, delta: 'y' });
    const failure = RESPONSES_FRAMING.errorFrame(first, new GatewayError(504, 'The stream stalled', { errorType: 'timeout' }), last);
    const [errorEvent] = failure.split('\n\n');
    expect(JSON.parse(errorEvent!.split('\n')[1]!.slice('data: '.length))).toMatchObject({ type: 'error', sequence_number: 8 });
  });
});
