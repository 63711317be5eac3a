import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATABASE_SERVICES, dropDatabase, ensureDatabase, migrate, migrationsPath, withDatabase } from '@gw/db-tools';
import { natsServerBinary } from './infra.ts';
import { authenticatedNatsConfig, type BusSeeds } from './nats-auth.ts';
import { freePort, isPortOpen, waitFor } from './ports.ts';
import type { DatabaseNames } from './stack.ts';

/*
 * What an isolated run (integration tests, end-to-end tests, the bench) needs so it never
 * shares state with a developer's stack or another run: databases of its own and a private
 * nats-server.
 */

export const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/** A short unique prefix for a run: lower case, valid as a PostgreSQL identifier. */
export function runPrefix(kind: string): string {
  return `gwtest_${kind}_${process.pid}_${Date.now().toString(36)}`;
}

/** Database names of one run: `<prefix>_<service>`. */
export function testDatabaseNames(prefix: string): DatabaseNames {
  return Object.fromEntries(
    DATABASE_SERVICES.map((service) => [service.name, `${prefix}_${service.name.replace(/-/g, '_')}`]),
  ) as DatabaseNames;
}

export function testDatabaseUrl(prefix: string, service: keyof DatabaseNames): string {
  return withDatabase(POSTGRES_URL, testDatabaseNames(prefix)[service]);
}

/** Creates and migrates every service's database for a run. */
export async function createTestDatabases(prefix: string): Promise<void> {
  for (const service of DATABASE_SERVICES) {
    const url = testDatabaseUrl(prefix, service.name);
    await dropDatabase(url);
    await ensureDatabase(url);
    await migrate(url, migrationsPath(service.name));
  }
}

export async function dropTestDatabases(prefix: string): Promise<void> {
  for (const service of DATABASE_SERVICES) await dropDatabase(testDatabaseUrl(prefix, service.name));
}

export interface PrivateNatsServerOptions {
  /**
   * Authorization: each service's user with its nkey and the permissions of
   * `@gw/contracts`'s table; clients without credentials are refused. Unset: no authorization.
   */
  seeds?: BusSeeds;
  /** With `seeds`: clients without credentials get every permission (integration test doubles). */
  anonymousHarness?: boolean;
}

/**
 * A private nats-server (the real binary, JetStream on, its own store) on a free port. It can
 * be halted and resumed on the same port, as an outage and a recovery would look.
 */
export class PrivateNatsServer {
  readonly port: number;
  /** The seeds of the services' users, when the server requires authentication. */
  readonly seeds: BusSeeds | undefined;
  private readonly binary: string;
  private readonly storeDir: string;
  private args: string[];
  private child: ChildProcess | undefined;

  private constructor(port: number, binary: string, seeds: BusSeeds | undefined) {
    this.port = port;
    this.binary = binary;
    this.seeds = seeds;
    this.storeDir = mkdtempSync(join(tmpdir(), 'gw-nats-'));
    this.args = ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', this.storeDir];
  }

  /** Runs the server with the generated configuration instead of plain flags. */
  private async configure(options: PrivateNatsServerOptions): Promise<void> {
    if (!options.seeds) return;
    const configPath = join(this.storeDir, 'nats.conf');
    const config = await authenticatedNatsConfig({
      host: '127.0.0.1',
      port: this.port,
      storeDir: join(this.storeDir, 'store'),
      seeds: options.seeds,
      anonymousHarness: options.anonymousHarness,
    });
    writeFileSync(configPath, config, { mode: 0o600 });
    this.args = ['-c', configPath];
  }

  static async start(options: PrivateNatsServerOptions = {}): Promise<PrivateNatsServer> {
    const binary = natsServerBinary();
    if (!binary) throw new Error('nats-server is not installed');
    const server = new PrivateNatsServer(await freePort(), binary, options.seeds);
    try {
      await server.configure(options);
      await server.resume();
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  /** The running server's pid, for CPU accounting (the bench). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  async resume(): Promise<void> {
    this.child = spawn(this.binary, this.args, { stdio: 'ignore' });
    await waitFor(() => isPortOpen('127.0.0.1', this.port), `nats-server on ${this.port}`, 10_000);
  }

  /** Kills the server abruptly, as an outage would. */
  async halt(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    await this.halt();
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}
