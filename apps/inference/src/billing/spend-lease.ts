import { Prisma } from '../generated/prisma/client.js';

const ZERO = new Prisma.Decimal(0);

/** One call's share of a lease: its worst case, and what its usage events charged so far. */
export interface LeaseTicket {
  lease: SpendLease;
  worst: Prisma.Decimal;
  charged: Prisma.Decimal;
}

/** A call queued on a lease behind its top-up, in arrival order. */
export interface LeaseWaiter {
  worst: Prisma.Decimal;
  resolve(ticket: LeaseTicket): void;
  reject(error: unknown): void;
  /** The lease was retired while the call waited: it asks the key's current lease instead. */
  redirect(): void;
}

/**
 * A replica's lease on one key's spend: what management holds for it (`granted`), and what the
 * calls on it have committed (the charges of ended calls plus, for each running call, the larger of
 * its worst case and its charges). A call runs only while committed stays within granted, so the
 * lease never pays for more than management held for it.
 */
export class SpendLease {
  granted = ZERO;
  /** Added by a top-up whose reply was lost: it may or may not be held, so it is given back too. */
  uncertain = ZERO;
  private committed = ZERO;
  private running = 0;
  retired = false;
  released = false;
  /** The last top-up got less than it wanted: the key is near a limit, so idle capacity is given back at once. */
  scarce = false;
  lastUsedAt: number;
  /** The top-up in flight; while it is, calls that do not fit queue in `waiting` instead of asking again. */
  topUp: Promise<void> | undefined;
  /** Calls waiting for a top-up, first come first served; never empty without a top-up in flight. */
  readonly waiting: LeaseWaiter[] = [];

  constructor(
    readonly id: string,
    readonly workspaceId: string,
    readonly keyHash: string,
    readonly openedAt: number,
  ) {
    this.lastUsedAt = openedAt;
  }

  get free(): Prisma.Decimal {
    return this.granted.minus(this.committed);
  }

  get idle(): boolean {
    return this.running === 0;
  }

  /** Takes `worst` for a call if it fits. */
  take(worst: Prisma.Decimal, now: number): LeaseTicket | undefined {
    if (this.retired || this.free.lt(worst)) return undefined;
    this.committed = this.committed.add(worst);
    this.running++;
    this.lastUsedAt = now;
    return { lease: this, worst, charged: ZERO };
  }

  /** A usage event of the call charged `amount` (a server-tool loop may charge past its worst case). */
  charge(ticket: LeaseTicket, amount: Prisma.Decimal): void {
    const before = Prisma.Decimal.max(ticket.worst, ticket.charged);
    ticket.charged = ticket.charged.add(amount);
    this.committed = this.committed.add(Prisma.Decimal.max(ticket.worst, ticket.charged).minus(before));
  }

  /** The call ended: only what it charged stays committed. */
  end(ticket: LeaseTicket): void {
    this.committed = this.committed.minus(Prisma.Decimal.max(ticket.worst, ticket.charged).minus(ticket.charged));
    this.running--;
  }

  /** What management may give back when the lease is retired and idle (never below 0). */
  get unused(): Prisma.Decimal {
    return Prisma.Decimal.max(ZERO, this.free).add(this.uncertain);
  }
}
