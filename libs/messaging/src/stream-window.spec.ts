import { describe, expect, it, vi } from 'vitest';
import { CreditGrants, gatedByWindow, parseWindow, StreamWindow } from './stream-window.js';

describe('parseWindow', () => {
  it('takes a positive integer and nothing else', () => {
    expect(parseWindow('65536')).toBe(65536);
    for (const value of [undefined, '', '0', '-1', '1.5', 'abc', '1e400']) expect(parseWindow(value)).toBeUndefined();
  });
});

describe('StreamWindow (the producer of a flow-controlled stream)', () => {
  it('is open until a whole window is unacknowledged', () => {
    const window = new StreamWindow(100);
    window.sent(60);
    expect(window.isOpen).toBe(true);
    expect(window.whenOpen()).toBeUndefined();
    window.sent(40);
    expect(window.unacknowledged).toBe(100);
    expect(window.isOpen).toBe(false);
    expect(window.whenOpen()).toBeInstanceOf(Promise);
  });

  it('reopens on credit that brings the unacknowledged bytes below the window', async () => {
    const window = new StreamWindow(100);
    window.sent(150); // one pull may overshoot: frames are never refused
    const opened = vi.fn();
    void window.whenOpen()!.then(opened);
    window.grant(40); // 110 still unacknowledged
    await Promise.resolve();
    expect(opened).not.toHaveBeenCalled();
    window.grant(60);
    await Promise.resolve();
    expect(opened).toHaveBeenCalledOnce();
    expect(window.unacknowledged).toBe(90);
  });

  it('takes credit as a cumulative count: late, repeated or excessive grants change nothing more', () => {
    const window = new StreamWindow(100);
    window.sent(100);
    window.grant(80);
    window.grant(50); // older grant, delivered late
    window.grant(80); // the same again
    expect(window.unacknowledged).toBe(20);
    window.grant(500); // more than was ever sent (a confused peer) acknowledges what was sent only
    expect(window.unacknowledged).toBe(0);
    window.sent(100);
    expect(window.isOpen).toBe(false);
  });

  it('lets everything through once released (the stream ended or was cancelled)', async () => {
    const window = new StreamWindow(10);
    window.sent(10);
    const waiting = window.whenOpen()!;
    window.release();
    await expect(waiting).resolves.toBeUndefined();
    window.sent(1_000);
    expect(window.whenOpen()).toBeUndefined();
  });
});

describe('CreditGrants (the consumer of a flow-controlled stream)', () => {
  it('grants the cumulative count once half a window was taken since the last grant', () => {
    const sent: number[] = [];
    const grants = new CreditGrants(100, (consumed) => sent.push(consumed));
    grants.took(30);
    grants.took(19);
    expect(sent).toEqual([]);
    grants.took(1);
    expect(sent).toEqual([50]);
    grants.took(120);
    expect(sent).toEqual([50, 170]);
  });

  it('never leaves a producer stopped at a full window without credit', () => {
    const window = new StreamWindow(100);
    const grants = new CreditGrants(100, (consumed) => window.grant(consumed));
    // The producer sends in uneven messages until the window closes; the consumer reads them all.
    const messages: number[] = [];
    for (const size of [7, 33, 20, 45, 9, 80, 3]) {
      if (!window.isOpen) break;
      window.sent(size);
      messages.push(size);
    }
    expect(window.isOpen).toBe(false);
    for (const size of messages) grants.took(size);
    expect(window.isOpen).toBe(true);
  });

  it('sends the last grant again once nothing arrived for the silence after it, and only then', () => {
    const sent: number[] = [];
    const grants = new CreditGrants(100, (consumed) => sent.push(consumed));
    const start = Date.now();
    grants.resendIfSilent(start + 10_000, 2_000);
    expect(sent).toEqual([]); // nothing granted yet: nothing to repeat
    grants.arrived();
    grants.took(60);
    expect(sent).toEqual([60]);
    grants.resendIfSilent(start + 1_000, 2_000); // sees the arrival: quiet from now on
    grants.resendIfSilent(start + 2_500, 2_000);
    expect(sent).toEqual([60]);
    grants.resendIfSilent(start + 3_000, 2_000);
    expect(sent).toEqual([60, 60]); // the producer may be stopped on a lost grant
    grants.resendIfSilent(start + 4_000, 2_000);
    expect(sent).toEqual([60, 60]); // at most one per silence
    grants.arrived(); // the producer heard it and sends again
    grants.resendIfSilent(start + 5_500, 2_000);
    grants.resendIfSilent(start + 7_000, 2_000);
    expect(sent).toEqual([60, 60]);
    grants.resendIfSilent(start + 7_500, 2_000);
    expect(sent).toEqual([60, 60, 60]);
  });
});

describe('gatedByWindow', () => {
  it('pulls the source only while the window is open', async () => {
    const window = new StreamWindow(10);
    let pulls = 0;
    const source: AsyncIterator<number> = { next: () => Promise.resolve({ value: ++pulls, done: false }) };
    const gated = gatedByWindow(source, window);
    await expect(gated.next()).resolves.toEqual({ value: 1, done: false });
    window.sent(10);
    const next = gated.next();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(pulls).toBe(1);
    window.grant(5);
    await expect(next).resolves.toEqual({ value: 2, done: false });
  });

  it('passes return() through, so a stream that ends early closes its source', async () => {
    const close = vi.fn(() => Promise.resolve({ value: undefined, done: true as const }));
    const gated = gatedByWindow<number>({ next: () => Promise.resolve({ value: 1, done: false }), return: close }, new StreamWindow(1));
    await gated.return?.();
    expect(close).toHaveBeenCalledOnce();
  });
});
