import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ephemeralPortRange, freePort } from './ports.ts';

const listening: Server[] = [];
afterEach(async () => {
  await Promise.all(listening.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A random source that answers `values` in turn, then the last one again and again. */
const sequence = (...values: number[]) => {
  let index = 0;
  return () => values[Math.min(index++, values.length - 1)]!;
};

describe('freePort', () => {
  it('reads the ephemeral range Linux gives outgoing connections, with its default when it cannot', () => {
    expect(ephemeralPortRange(() => '32768\t60999\n')).toEqual([32_768, 60_999]);
    expect(ephemeralPortRange(() => '1024 65535')).toEqual([1_024, 65_535]);
    expect(
      ephemeralPortRange(() => {
        throw new Error('ENOENT');
      }),
    ).toEqual([32_768, 60_999]);
  });

  it('chooses outside the ephemeral range, where no outgoing connection takes the port before its server binds it', async () => {
    const [low, high] = ephemeralPortRange();
    for (let index = 0; index < 20; index++) {
      const port = await freePort();
      expect(port < low || port > high, String(port)).toBe(true);
    }
    // A range that leaves more room above it: chosen above.
    expect(await freePort(sequence(0.5), [1_024, 40_000])).toBeGreaterThan(40_000);
  });

  it('never hands out the same port twice in a process, and skips a port something listens on', async () => {
    const range: [number, number] = [32_768, 60_999];
    const first = await freePort(sequence(0.25), range);
    // The same draw again: that port was handed out, so the next draw is taken.
    const second = await freePort(sequence(0.25, 0.75), range);
    expect(second).not.toBe(first);
    // A port in use (a server listens on it) is skipped.
    const busy = await freePort(sequence(0.5), range);
    const server = createServer();
    listening.push(server);
    await new Promise<void>((resolve) => server.listen(busy + 1, '127.0.0.1', resolve));
    const span = 32_767 - 20_000 + 1;
    // The first draw is exactly the busy port; any later one is random.
    let draws = 0;
    const chosen = await freePort(() => (draws++ === 0 ? (busy + 1 - 20_000 + 0.5) / span : Math.random()), range);
    expect(draws).toBeGreaterThan(1);
    expect(chosen).not.toBe(busy + 1);
  });
});
