import { describe, expect, it } from 'vitest';
import { SseTally } from './sse.ts';

describe('SseTally', () => {
  it('counts data events across pieces split anywhere, [DONE] included', () => {
    const body = 'data: {"a":1}\n\ndata: {"b":2}\r\n\r\ndata: [DONE]\n\n';
    for (let cut = 1; cut < body.length; cut++) {
      const tally = new SseTally();
      tally.push(body.slice(0, cut));
      tally.push(body.slice(cut));
      expect({ events: tally.events, done: tally.done, errors: tally.errors }).toEqual({ events: 3, done: true, errors: 0 });
    }
  });

  it('says which piece held the first byte of the first data line, not a comment before it', () => {
    const tally = new SseTally();
    expect(tally.push(': keep-alive\n\n')).toBe(false);
    expect(tally.push('d')).toBe(true);
    expect(tally.push('ata: {"x":1}\n\n')).toBe(false);
    expect(tally.events).toBe(1);
    expect(tally.done).toBe(false);
  });

  it('is not fooled by an event line that is not data', () => {
    const tally = new SseTally();
    expect(tally.push('event: ping\n')).toBe(false);
    expect(tally.push('data: {}\n\n')).toBe(true);
  });

  it('counts an error chunk (a mid-stream failure) and a broken line as errors, and a stream without [DONE] as not done', () => {
    const tally = new SseTally();
    tally.push('data: {"choices":[]}\n\ndata: {"choices":[],"error":{"code":502}}\n\ndata: {"error" broken\n\n');
    expect(tally).toMatchObject({ events: 3, errors: 2, done: false, firstError: '{"choices":[],"error":{"code":502}}' });
  });

  it('joins a multi-line data event into one event', () => {
    const tally = new SseTally();
    tally.push('data: {"a":\ndata: 1}\n\n');
    expect(tally.events).toBe(1);
    expect(tally.errors).toBe(0);
  });
});
