import type { BufferBudget } from '@gw/messaging';

/**
 * The bytes every stream of this gateway process holds for clients slower than their provider,
 * together (GATEWAY_MAX_BUFFERED_BYTES). Per process by nature: it protects this
 * process's memory, so it stays in force when Redis is down.
 */
export class StreamBufferBudget implements BufferBudget {
  private used = 0;

  constructor(readonly maxBytes: number) {}

  get usedBytes(): number {
    return this.used;
  }

  tryTake(bytes: number): boolean {
    if (this.used + bytes > this.maxBytes) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }
}
