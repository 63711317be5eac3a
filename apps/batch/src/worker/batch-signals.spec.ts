import { describe, expect, it, vi } from 'vitest';
import { BatchSignals } from './batch-signals.js';

/** What happens here wakes this replica and is announced; what is heard only wakes. */
describe('BatchSignals', () => {
  function wired() {
    const signals = new BatchSignals();
    const sweeps = vi.fn();
    const claims = vi.fn();
    const announced = vi.fn();
    signals.onBatchChanged(sweeps);
    signals.onLinesRunnable(claims);
    const stopAnnouncing = signals.onAnnounce(announced);
    return { signals, sweeps, claims, announced, stopAnnouncing };
  }

  it('wakes the sweeps on a submit or cancel here, the line runner on a start or lines given back, and announces each', () => {
    const { signals, sweeps, claims, announced } = wired();
    signals.batchChanged('submitted');
    signals.batchChanged('cancelled');
    expect(sweeps).toHaveBeenCalledTimes(2);
    expect(claims).not.toHaveBeenCalled();
    signals.linesRunnable('started');
    signals.linesRunnable('lines');
    expect(claims).toHaveBeenCalledTimes(2);
    expect(sweeps).toHaveBeenCalledTimes(2);
    expect(announced.mock.calls).toEqual([['submitted'], ['cancelled'], ['started'], ['lines']]);
  });

  it('turns what another replica announced into the matching wake-up, without announcing it again', () => {
    const { signals, sweeps, claims, announced } = wired();
    signals.heard('submitted');
    signals.heard('cancelled');
    expect(sweeps).toHaveBeenCalledTimes(2);
    expect(claims).not.toHaveBeenCalled();
    signals.heard('started');
    signals.heard('lines');
    expect(claims).toHaveBeenCalledTimes(2);
    expect(announced).not.toHaveBeenCalled();
  });

  it('stops telling a listener or an announcer once it unsubscribed', () => {
    const { signals, announced, stopAnnouncing } = wired();
    const late = vi.fn();
    const stop = signals.onBatchChanged(late);
    stop();
    stopAnnouncing();
    signals.batchChanged('submitted');
    expect(late).not.toHaveBeenCalled();
    expect(announced).not.toHaveBeenCalled();
  });
});
