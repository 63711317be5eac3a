import 'reflect-metadata';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BatchFinalizer } from '../batches/batch-finalizer.js';
import type { BatchStore } from '../batches/batch-store.js';
import type { CostGuard } from '../billing/cost-guard.service.js';
import { SystemClock } from '../clock/clock.js';
import type { BatchEnv } from '../env.js';
import type { FilesService } from '../files/files.service.js';
import type { NativeBatches } from '../native/native-batches.js';
import { BatchRunner } from './batch-runner.service.js';
import { BatchSignals } from './batch-signals.js';
import { BatchSweeper } from './batch-sweeper.service.js';
import type { LineClaims } from './line-claims.js';
import type { LineExecutor } from './line-executor.js';

/** An idle worker polls every BATCH_IDLE_POLL_MS, and what makes work here wakes it at once. */
describe('batch worker idle poll', () => {
  const env = {
    BATCH_WORKER: 'true',
    BATCH_CONCURRENCY: 8,
    BATCH_WORKSPACE_CONCURRENCY: 4,
    BATCH_LEASE_MS: 60_000,
    BATCH_POLL_MS: 500,
    BATCH_IDLE_POLL_MS: 5_000,
  } as BatchEnv;

  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  describe('line runner', () => {
    function runner(signals: BatchSignals) {
      const claim = vi.fn().mockResolvedValue([]);
      const claims = { claim, renew: vi.fn().mockResolvedValue(0) } as unknown as LineClaims;
      return { claim, runner: new BatchRunner(claims, {} as LineExecutor, new SystemClock(), env, signals) };
    }

    it('claims every BATCH_IDLE_POLL_MS while nothing runs, and at once when lines become runnable', async () => {
      const signals = new BatchSignals();
      const { claim, runner: worker } = runner(signals);
      worker.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(claim).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(4_900);
      expect(claim).toHaveBeenCalledTimes(1);
      await vi.advanceTimersByTimeAsync(100);
      expect(claim).toHaveBeenCalledTimes(2);
      signals.linesRunnable('started');
      await vi.advanceTimersByTimeAsync(0);
      expect(claim).toHaveBeenCalledTimes(3);
      await worker.stop();
      signals.linesRunnable('started');
      await vi.advanceTimersByTimeAsync(10_000);
      expect(claim).toHaveBeenCalledTimes(3);
    });
    it('claims again at once when lines became runnable while a claim was in flight', async () => {
      const signals = new BatchSignals();
      const { claim, runner: worker } = runner(signals);
      let answer: (lines: never[]) => void = () => undefined;
      claim.mockImplementationOnce(() => new Promise((resolve) => (answer = resolve)));
      worker.start();
      await vi.advanceTimersByTimeAsync(0);
      expect(claim).toHaveBeenCalledTimes(1);
      signals.linesRunnable('started'); // its query may have run before the batch was started
      answer([]);
      await vi.advanceTimersByTimeAsync(0);
      expect(claim).toHaveBeenCalledTimes(2);
      await vi.advanceTimersByTimeAsync(4_900);
      expect(claim).toHaveBeenCalledTimes(2);
      await worker.stop();
    });
  });

  describe('sweeper', () => {
    function sweeper(signals: BatchSignals, active: () => boolean) {
      const findFirst = vi.fn(() => Promise.resolve(active() ? { id: 'batch_1' } : null));
      const store = { prisma: { batch: { findFirst } } } as unknown as BatchStore;
      const sweep = new BatchSweeper(
        store,
        {} as BatchFinalizer,
        {} as CostGuard,
        {} as NativeBatches,
        {} as LineClaims,
        new SystemClock(),
        env,
        signals,
        {} as FilesService,
      );
      const passes = vi.spyOn(sweep, 'sweep').mockResolvedValue();
      return { sweep, passes };
    }

    it('sweeps every BATCH_POLL_MS while a batch is active, every BATCH_IDLE_POLL_MS otherwise', async () => {
      let active = true;
      const { sweep, passes } = sweeper(new BatchSignals(), () => active);
      sweep.onApplicationBootstrap();
      await vi.advanceTimersByTimeAsync(1_500);
      expect(passes).toHaveBeenCalledTimes(3);
      active = false;
      await vi.advanceTimersByTimeAsync(500); // this sweep finds nothing active
      expect(passes).toHaveBeenCalledTimes(4);
      await vi.advanceTimersByTimeAsync(4_900);
      expect(passes).toHaveBeenCalledTimes(4);
      await vi.advanceTimersByTimeAsync(100);
      expect(passes).toHaveBeenCalledTimes(5);
      await sweep.onModuleDestroy();
    });

    it('sweeps at once when a batch is submitted or cancelled here, and again after a sweep a signal interrupted', async () => {
      const signals = new BatchSignals();
      const { sweep, passes } = sweeper(signals, () => false);
      sweep.onApplicationBootstrap();
      await vi.advanceTimersByTimeAsync(500);
      expect(passes).toHaveBeenCalledTimes(1);
      signals.batchChanged('submitted');
      await vi.advanceTimersByTimeAsync(0);
      expect(passes).toHaveBeenCalledTimes(2);

      let finish: () => void = () => undefined;
      passes.mockImplementationOnce(() => new Promise<void>((resolve) => (finish = resolve)));
      signals.batchChanged('submitted');
      await vi.advanceTimersByTimeAsync(0);
      expect(passes).toHaveBeenCalledTimes(3);
      signals.batchChanged('submitted'); // during that sweep
      finish();
      await vi.advanceTimersByTimeAsync(0);
      expect(passes).toHaveBeenCalledTimes(4);

      await sweep.onModuleDestroy();
      signals.batchChanged('submitted');
      await vi.advanceTimersByTimeAsync(10_000);
      expect(passes).toHaveBeenCalledTimes(4);
    });
  });
});
