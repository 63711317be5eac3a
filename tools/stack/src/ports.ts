import { readFileSync } from 'node:fs';
import { createServer, Socket } from 'node:net';

export function isPortOpen(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, host, () => done(true));
  });
}

/** Lowest port handed out: above the usual fixed ones (PostgreSQL, Redis, NATS, the dev stack's 8080, 879x). */
const LOWEST_PORT = 20_000;
const ports = new Set<number>();

/** The ports Linux gives outgoing connections (`/proc/sys/net/ipv4/ip_local_port_range`), or its default. */
export function ephemeralPortRange(
  read: () => string = () => readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8'),
): [number, number] {
  try {
    const [low, high] = read().trim().split(/\s+/).map(Number);
    if (Number.isInteger(low) && Number.isInteger(high) && low! <= high!) return [low!, high!];
  } catch {
    // not Linux: its default range below
  }
  return [32_768, 60_999];
}

/**
 * A port free right now, never the same twice in this process, outside the ephemeral range. A
 * port the kernel picked for a bind to port 0 (the old way) could be drawn again by the next such
 * bind, here or in another process, in the seconds before the process it was meant for listened:
 * two processes of one stack got the same port and one failed (EADDRINUSE).
 */
export async function freePort(random: () => number = Math.random, range = ephemeralPortRange()): Promise<number> {
  const [ephemeralLow, ephemeralHigh] = range;
  const below: [number, number] = [LOWEST_PORT, ephemeralLow - 1];
  const above: [number, number] = [ephemeralHigh + 1, 65_535];
  const [low, high] = below[1] - below[0] >= above[1] - above[0] ? below : above;
  if (high - low < 1_000) return kernelPort();
  for (let attempt = 0; attempt < 1_000; attempt++) {
    const port = low + Math.floor(random() * (high - low + 1));
    if (ports.has(port) || !(await canBind(port))) continue;
    ports.add(port);
    return port;
  }
  throw new Error(`No free port between ${low} and ${high}`);
}

/** Nothing listens on the port, on any address (the services bind 0.0.0.0 or 127.0.0.1). */
function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** What the kernel picks for port 0 (a machine without room outside its ephemeral range). */
function kernelPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs: number, intervalMs = 150): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`);
}

export async function httpOk(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}
