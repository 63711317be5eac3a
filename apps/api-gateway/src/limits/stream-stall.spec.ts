import { createServer, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { drained } from './stream-stall.js';

/*
 * The stall bound of a stream on real sockets: a response is written until the socket stops
 * taking more; a client that reads nothing is cut after the stall time, one that reads is not.
 */

let server: Server | undefined;
afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

/** Serves one response of 64 KB chunks, awaiting `drained` whenever the socket is full; reports the last wait. */
function serveUntilFull(stallMs: number): Promise<{ url: AddressInfo; outcome: Promise<{ closed: boolean; waitedMs: number }> }> {
  return new Promise((resolveServer) => {
    let settle: (value: { closed: boolean; waitedMs: number }) => void;
    const outcome = new Promise<{ closed: boolean; waitedMs: number }>((resolve) => (settle = resolve));
    server = createServer((_request, response: ServerResponse) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = `data: ${'x'.repeat(64 * 1024)}\n\n`;
      // As the relay does: write until the socket is full, wait for it to drain, go on; 64 MB in all.
      const fill = async () => {
        let written = 0;
        let waitedMs = 0;
        while (written < 64 * 1024 * 1024 && !response.destroyed) {
          written += chunk.length;
          if (response.write(chunk)) continue;
          const started = Date.now();
          await drained(response, stallMs);
          waitedMs = Date.now() - started;
        }
        settle({ closed: response.destroyed, waitedMs });
        if (!response.destroyed) response.end();
      };
      void fill();
    });
    server.listen(0, '127.0.0.1', () => resolveServer({ url: server!.address() as AddressInfo, outcome }));
  });
}

describe('drained (stalled readers)', () => {
  it('closes the connection of a client that takes nothing for the stall time', async () => {
    const { url, outcome } = await serveUntilFull(300);
    const client = connect(url.port, url.address);
    client.on('error', () => undefined);
    client.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    client.pause(); // reads nothing
    const { closed, waitedMs } = await outcome;
    expect(closed).toBe(true);
    expect(waitedMs).toBeGreaterThanOrEqual(250);
    expect(waitedMs).toBeLessThan(2_000);
    client.destroy();
  });

  it('lets a client that reads go on', async () => {
    const { url, outcome } = await serveUntilFull(5_000);
    const client = connect(url.port, url.address);
    client.on('data', () => undefined); // reads everything
    client.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    const { closed, waitedMs } = await outcome;
    expect(closed).toBe(false);
    expect(waitedMs).toBeLessThan(2_000);
    client.destroy();
  });
});
