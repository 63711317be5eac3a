/**
 * The one source of time of the batch service: expiry (24 h), retention (30 days), leases and
 * sweeps all read it, so tests move time forward without sleeping (issue 13).
 */
export abstract class Clock {
  abstract now(): Date;
}

export class SystemClock extends Clock {
  now(): Date {
    return new Date();
  }
}

/** A clock tests set and move by hand. */
export class ManualClock extends Clock {
  constructor(private at: Date = new Date()) {
    super();
  }

  now(): Date {
    return new Date(this.at.getTime());
  }

  advance(ms: number): void {
    this.at = new Date(this.at.getTime() + ms);
  }
}
