import type { ServerResponse } from 'node:http';

/**
 * Waits until the socket takes more, or is gone. A client that takes nothing for `stallMs`
 * has its connection closed: the 'close' that follows makes the relay cancel the
 * provider call, so a reader that stopped reading holds neither memory nor an upstream stream.
 */
export function drained(raw: Pick<ServerResponse, 'on' | 'off' | 'destroy'>, stallMs: number): Promise<void> {
  return new Promise((resolve) => {
    const stalled = setTimeout(() => raw.destroy(), stallMs);
    const done = (): void => {
      clearTimeout(stalled);
      raw.off('drain', done);
      raw.off('close', done);
      resolve();
    };
    raw.on('drain', done);
    raw.on('close', done);
  });
}

/** Closes the connection unless the response finishes being taken within `stallMs`. */
export function closeIfStalled(raw: Pick<ServerResponse, 'once' | 'destroy'>, stallMs: number): void {
  const stalled = setTimeout(() => raw.destroy(), stallMs);
  stalled.unref();
  raw.once('close', () => clearTimeout(stalled));
}
