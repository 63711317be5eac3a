import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { isPortOpen, waitFor } from './ports.ts';

export interface Endpoint {
  host: string;
  port: number;
}

function parseUrl(url: string, defaultPort: number): Endpoint {
  const parsed = new URL(url.split(',')[0]!);
  return { host: parsed.hostname, port: Number(parsed.port || defaultPort) };
}

function isLocal(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1';
}

/**
 * Makes sure PostgreSQL is reachable; when it is the local server and it is stopped, starts
 * it (the machines this runs on have it installed but not always running).
 */
export async function ensurePostgres(url: string): Promise<void> {
  const endpoint = parseUrl(url, 5432);
  if (await isPortOpen(endpoint.host, endpoint.port)) return;
  if (!isLocal(endpoint.host) || !existsSync('/etc/postgresql')) {
    throw new Error(`PostgreSQL is not reachable at ${endpoint.host}:${endpoint.port}; start it or set POSTGRES_URL`);
  }
  for (const version of readdirSync('/etc/postgresql')) {
    spawnSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], { stdio: 'ignore' });
  }
  await waitFor(() => isPortOpen(endpoint.host, endpoint.port), `PostgreSQL on ${endpoint.host}:${endpoint.port}`, 30_000);
}

export function natsServerBinary(): string | undefined {
  for (const candidate of ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server']) {
    if (existsSync(candidate)) return candidate;
  }
  try {
    return execFileSync('sh', ['-c', 'command -v nats-server'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Makes sure NATS (with JetStream) is reachable; starts the local server when installed. */
export async function ensureNats(url: string): Promise<void> {
  const endpoint = parseUrl(url, 4222);
  if (await isPortOpen(endpoint.host, endpoint.port)) return;
  const binary = natsServerBinary();
  if (!isLocal(endpoint.host) || !binary) {
    throw new Error(`NATS is not reachable at ${endpoint.host}:${endpoint.port}; start it or set NATS_URL`);
  }
  spawnSync(
    'start-stop-daemon',
    [
      '--start',
      '--oknodo',
      '--background',
      '--exec',
      binary,
      '--',
      '-a',
      endpoint.host,
      '-p',
      String(endpoint.port),
      '-js',
      '-sd',
      '/var/lib/nats-server',
    ],
    { stdio: 'ignore' },
  );
  await waitFor(() => isPortOpen(endpoint.host, endpoint.port), `NATS on ${endpoint.host}:${endpoint.port}`, 15_000);
}

export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export function redisServerBinary(): string | undefined {
  for (const candidate of ['/usr/bin/redis-server', '/usr/sbin/redis-server', '/usr/local/bin/redis-server']) {
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Makes sure Redis (the rate limiter's shared counters) is reachable; starts the local
 * `redis-server` (Debian's package) when it is installed and stopped. It keeps nothing on
 * disk: the counters are short-lived by design.
 */
export async function ensureRedis(url: string = REDIS_URL): Promise<void> {
  const endpoint = parseUrl(url, 6379);
  if (await isPortOpen(endpoint.host, endpoint.port)) return;
  const binary = redisServerBinary();
  if (!isLocal(endpoint.host) || !binary) {
    throw new Error(`Redis is not reachable at ${endpoint.host}:${endpoint.port}; install redis-server, start it or set REDIS_URL`);
  }
  spawnSync(binary, ['--bind', endpoint.host, '--port', String(endpoint.port), '--daemonize', 'yes', '--save', '', '--appendonly', 'no'], {
    stdio: 'ignore',
  });
  await waitFor(() => isPortOpen(endpoint.host, endpoint.port), `Redis on ${endpoint.host}:${endpoint.port}`, 15_000);
}
