import { counter } from '@gw/metrics';
import type { RateDecision, RequestRateLimiter } from '@gw/rate-limit';

/** The shared limiters' refusal count (libs/rate-limit); the same instrument, looked up by name. */
const refusals = counter('rate_limit_refusals_total', 'Calls refused by a rate or concurrency limiter', ['limiter']);

/**
 * A count the window never reaches: the batch's consume is never refused by rate-limiter-flexible,
 * so its answer tells how far the count went (`limit - remaining`), from which each turn's own
 * place in the window, and so its decision, follows.
 */
const UNREFUSED = Number.MAX_SAFE_INTEGER;

interface Turn {
  resolve: (decision: RateDecision) => void;
  reject: (error: unknown) => void;
}

/**
 * Intern turns (past them, a 429), counted in Redis through the shared limiter, with the turns of
 * one intern that arrive together counted in ONE command: the signatures a replica
 * starts in the same tick for an intern add their number to the intern's window counter at
 * once (an atomic INCRBY in rate-limiter-flexible's script), and the counts that add covered,
 * in arrival order, are theirs. That is exactly what one command per turn would have counted
 * (every consume counts, refused or not, and the counter is the same one), at a fraction of the
 * Redis round trips under load. Redis down: every turn of the batch fails open, as the limiter
 * does.
 */
export class InternTurns {
  private readonly waiting = new Map<string, Turn[]>();

  constructor(
    private readonly limiter: RequestRateLimiter,
    /** Turns per window (SIGN_RATE_LIMIT). */
    private readonly limit: number,
    /** The limiter's name in metrics (`rate_limit_refusals_total{limiter}`). */
    private readonly name: string,
  ) {}

  /** Counts one turn of `internId`: allowed while the window's count stays within the limit. */
  consume(internId: string): Promise<RateDecision> {
    let turns = this.waiting.get(internId);
    if (!turns) {
      turns = [];
      this.waiting.set(internId, turns);
      // After the microtasks of this tick: every handler that reached its turn by then joins.
      process.nextTick(() => void this.count(internId));
    }
    const batch = turns;
    return new Promise((resolve, reject) => batch.push({ resolve, reject }));
  }

  private async count(internId: string): Promise<void> {
    const turns = this.waiting.get(internId)!;
    this.waiting.delete(internId);
    const added = turns.length;
    let total: RateDecision;
    try {
      total = await this.limiter.consume(internId, UNREFUSED, added);
    } catch (error) {
      for (const turn of turns) turn.reject(error);
      return;
    }
    if (total.degraded) {
      for (const turn of turns) turn.resolve({ ...total, limit: this.limit, remaining: this.limit });
      return;
    }
    const reached = UNREFUSED - total.remaining;
    const retryAfterSeconds = Math.max(1, Math.ceil((total.resetAt - Date.now()) / 1000));
    turns.forEach(({ resolve }, index) => {
      const count = reached - added + 1 + index;
      const allowed = count <= this.limit;
      if (!allowed) refusals.inc({ limiter: this.name });
      resolve({
        allowed,
        limit: this.limit,
        remaining: Math.max(0, this.limit - count),
        resetAt: total.resetAt,
        retryAfterSeconds: allowed ? 0 : retryAfterSeconds,
        degraded: false,
      });
    });
  }
}
