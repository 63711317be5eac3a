/** `retry_after`: the provider asked to wait (one endpoint x credential); `failing`: failures in a row (the endpoint). */
export type CooldownReason = 'retry_after' | 'failing';

/** An endpoint (or endpoint x credential) routing skips until `until` (epoch ms). */
export interface Cooldown {
  key: string;
  until: number;
  reason: CooldownReason;
  /** `failing`: the failures in a row that started it, and the last one's canonical error type. */
  failures?: number;
  errorType?: string;
}

/** Where routing reads and starts cooldowns: memory only on the read side. */
export interface CooldownBoard {
  /** Milliseconds left of the key's cooldown; 0 when it may be called now. */
  coolingFor(key: string): number;
  /** The key's cooldown while it runs. */
  cooldown(key: string): Cooldown | undefined;
  coolDown(cooldown: Cooldown): void;
  /** Every cooldown still running. */
  running(): Iterable<Cooldown>;
}

/** Bound on remembered keys (endpoint x credential): expired ones are dropped first. */
const MAX_KEYS = 10_000;

/**
 * Cooldowns in this process's memory: the whole board of one replica, or the mirror of the shared
 * one (endpoint-cooldowns.service.ts). A lookup is one map read; nothing cooling, nothing stored.
 */
export class CooldownMirror implements CooldownBoard {
  private readonly entries = new Map<string, Cooldown>();

  constructor(protected readonly now: () => number = Date.now) {}

  coolingFor(key: string): number {
    const entry = this.entries.get(key);
    if (!entry) return 0;
    const left = entry.until - this.now();
    if (left > 0) return left;
    this.entries.delete(key);
    return 0;
  }

  cooldown(key: string): Cooldown | undefined {
    return this.coolingFor(key) > 0 ? this.entries.get(key) : undefined;
  }

  coolDown(cooldown: Cooldown): void {
    this.apply(cooldown);
  }

  *running(): IterableIterator<Cooldown> {
    const now = this.now();
    for (const entry of this.entries.values()) if (entry.until > now) yield entry;
  }

  /** Keeps the later of the known and the given cooldown; true when the given one is news. */
  protected apply(cooldown: Cooldown): boolean {
    const now = this.now();
    if (cooldown.until <= now) return false;
    const current = this.entries.get(cooldown.key);
    if (current && current.until >= cooldown.until) return false;
    if (!current && this.entries.size >= MAX_KEYS) this.prune(now);
    this.entries.set(cooldown.key, cooldown);
    return true;
  }

  private prune(now: number): void {
    for (const [key, entry] of this.entries) if (entry.until <= now) this.entries.delete(key);
    if (this.entries.size >= MAX_KEYS) this.entries.delete(this.entries.keys().next().value!);
  }
}
