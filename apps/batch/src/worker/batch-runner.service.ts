import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { Clock } from '../clock/clock.js';
import { BATCH_ENV, type BatchEnv } from '../env.js';
import { BatchSignals } from './batch-signals.js';
import { LineClaims, type ClaimedLine } from './line-claims.js';
import { LineExecutor } from './line-executor.js';

/**
 * The replica's batch worker: claims runnable lines under leases, at most
 * BATCH_CONCURRENCY at once and BATCH_WORKSPACE_CONCURRENCY per workspace over all replicas,
 * runs each through inference, and stores each result as it finishes. Leases of running lines
 * are renewed; a line that failed retryably is given back. Stopping gives back what it holds.
 */
@Injectable()
export class BatchRunner implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(BatchRunner.name);
  /** This replica's lease owner id. */
  readonly owner = `${process.pid}-${randomUUID()}`;
  private readonly running = new Map<string, Promise<void>>();
  private stopped = true;
  private loop: Promise<void> | undefined;
  private renewTimer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  /** A wake-up came while no pause was waiting (a claim in flight): the next pause ends at once. */
  private woken = false;
  private unsubscribe: (() => void) | undefined;
  /** Lines finished by this replica (for tests and metrics). */
  finished = 0;

  constructor(
    private readonly claims: LineClaims,
    private readonly executor: LineExecutor,
    private readonly clock: Clock,
    @Inject(BATCH_ENV) private readonly env: BatchEnv,
    private readonly signals: BatchSignals,
  ) {}

  onApplicationBootstrap(): void {
    if (this.env.BATCH_WORKER === 'true') this.start();
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.unsubscribe = this.signals.onLinesRunnable(() => this.nudge());
    this.loop = this.run();
    this.renewTimer = setInterval(() => void this.renew(), Math.max(500, Math.floor(this.env.BATCH_LEASE_MS / 3)));
  }

  /** Stops claiming and waits for the lines in flight to be stored. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    this.wake?.();
    clearInterval(this.renewTimer);
    await this.loop;
    await Promise.allSettled(this.running.values());
  }

  async onModuleDestroy(): Promise<void> {
    await this.stop();
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      let claimed: ClaimedLine[] = [];
      try {
        const slots = this.env.BATCH_CONCURRENCY - this.running.size;
        claimed = await this.claims.claim(
          this.owner,
          this.clock.now(),
          this.env.BATCH_LEASE_MS,
          slots,
          this.env.BATCH_WORKSPACE_CONCURRENCY,
        );
      } catch (error) {
        if (!this.stopped) this.logger.warn(`Claiming batch lines failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      for (const line of claimed) {
        const work = this.execute(line).finally(() => {
          this.running.delete(line.id);
          this.nudge();
        });
        this.running.set(line.id, work);
      }
      // Full, or nothing to run: wait for a line to finish, a wake-up, or the next poll, which is
      // BATCH_IDLE_POLL_MS when nothing runs here.
      if (claimed.length === 0 || this.running.size >= this.env.BATCH_CONCURRENCY) {
        await this.pause(this.running.size === 0 ? this.env.BATCH_IDLE_POLL_MS : this.env.BATCH_POLL_MS);
      }
    }
  }

  /** Claim again now: ends the pause, or the next one when a claim is in flight (its query may have missed the lines). */
  private nudge(): void {
    if (this.wake) this.wake();
    else this.woken = true;
  }

  private pause(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private async execute(line: ClaimedLine): Promise<void> {
    try {
      const run = await this.executor.run(line);
      if (run.kind === 'retry') {
        await this.claims.release(this.owner, line.id, this.clock.now());
        return;
      }
      if (await this.claims.finish(this.owner, line.id, run.outcome, this.clock.now())) this.finished++;
    } catch (error) {
      // The database was unreachable: the lease runs out and another replica (or this one) runs the line again.
      this.logger.error(`Batch line ${line.id} of ${line.batchId} not stored: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  private async renew(): Promise<void> {
    const until = new Date(this.clock.now().getTime() + this.env.BATCH_LEASE_MS);
    await this.claims.renew(this.owner, [...this.running.keys()], until).catch((error: unknown) => {
      this.logger.warn(`Renewing batch line leases failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  }
}
