import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATABASE_SERVICES, dropDatabase, ensureDatabase, migrate, migrationsPath, withDatabase } from '@gw/db-tools';
import {
  ensurePostgres,
  freePort,
  isPortOpen,
  natsServerBinary,
  seedKeys,
  startStack,
  stopProcesses,
  stopProcessesGracefully,
  waitFor,
  type DatabaseNames,
  type Stack,
} from '@gw/stack';

/*
 * The same isolated stack as the e2e global setup (libs/testing/src/global-setup/e2e.ts): the
 * run's own databases (`gwtest_bench_*`), a private nats-server, free ports, log level warn.
 * @gw/testing itself cannot be loaded by plain Node (it relies on vitest's transform: `.js`
 * specifiers for `.ts` files and TypeScript parameter properties), so its few helpers are
 * mirrored here on top of @gw/db-tools and @gw/stack, with the same names and behaviour.
 */

export const POSTGRES_URL = process.env.POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/** Same scheme as @gw/testing's runPrefix('bench'). */
export function runPrefix(kind: string): string {
  return `gwtest_${kind}_${process.pid}_${Date.now().toString(36)}`;
}

export function testDatabaseNames(prefix: string): DatabaseNames {
  return Object.fromEntries(
    DATABASE_SERVICES.map((service) => [service.name, `${prefix}_${service.name.replace(/-/g, '_')}`]),
  ) as DatabaseNames;
}

function testDatabaseUrl(prefix: string, service: keyof DatabaseNames): string {
  return withDatabase(POSTGRES_URL, testDatabaseNames(prefix)[service]);
}

async function createTestDatabases(prefix: string): Promise<void> {
  for (const service of DATABASE_SERVICES) {
    const url = testDatabaseUrl(prefix, service.name);
    await dropDatabase(url);
    await ensureDatabase(url);
    await migrate(url, migrationsPath(service.name));
  }
}

async function dropTestDatabases(prefix: string): Promise<void> {
  for (const service of DATABASE_SERVICES) await dropDatabase(testDatabaseUrl(prefix, service.name));
}

/** A private nats-server (JetStream, own store directory) on a free port. */
class PrivateNatsServer {
  readonly port: number;
  readonly child: ChildProcess;
  private readonly storeDir: string;

  private constructor(port: number, child: ChildProcess, storeDir: string) {
    this.port = port;
    this.child = child;
    this.storeDir = storeDir;
  }

  static async start(): Promise<PrivateNatsServer> {
    const binary = natsServerBinary();
    if (!binary) throw new Error('nats-server is not installed');
    const port = await freePort();
    const storeDir = mkdtempSync(join(tmpdir(), 'gw-bench-nats-'));
    const child = spawn(binary, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: 'ignore' });
    const server = new PrivateNatsServer(port, child, storeDir);
    try {
      await waitFor(() => isPortOpen('127.0.0.1', port), `nats-server on ${port}`, 10_000);
    } catch (error) {
      await server.stop();
      throw error;
    }
    return server;
  }

  get url(): string {
    return `nats://127.0.0.1:${this.port}`;
  }

  async stop(): Promise<void> {
    const child = this.child;
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(this.storeDir, { recursive: true, force: true });
  }
}

export interface IsolatedStack {
  baseUrl: string;
  simulatorUrl: string;
  apiKey: string;
  logDir: string;
}

/**
 * Owns everything the bench starts, so that `teardown()` can undo exactly what was set up,
 * whichever step failed or was interrupted.
 */
export class IsolatedStackRun {
  readonly prefix = runPrefix('bench');
  readonly stateDir = mkdtempSync(join(tmpdir(), 'gw-bench-'));
  private databasesCreated = false;
  private stackStarting = false;
  private nats: PrivateNatsServer | undefined;
  private stack: Stack | undefined;
  private tornDown: Promise<void> | undefined;

  get logDir(): string {
    return join(this.stateDir, 'logs');
  }

  /**
   * The short steps run to completion and the signal is checked between them (so teardown
   * never races a half-made database); the wait for the stack to be ready (up to a minute) is
   * abandoned at once on abort, and teardown then ends the processes it had spawned.
   */
  async start(signal: AbortSignal): Promise<IsolatedStack> {
    await ensurePostgres(POSTGRES_URL);
    signal.throwIfAborted();
    this.databasesCreated = true;
    await createTestDatabases(this.prefix);
    signal.throwIfAborted();
    this.nats = await PrivateNatsServer.start();
    signal.throwIfAborted();
    const keys = seedKeys(testDatabaseUrl(this.prefix, 'management'));
    signal.throwIfAborted();
    this.stackStarting = true;
    const starting = startStack({
      stateDir: this.stateDir,
      natsUrl: this.nats.url,
      postgresUrl: POSTGRES_URL,
      databases: testDatabaseNames(this.prefix),
      gatewayPort: await freePort(),
      simulatorPort: await freePort(),
      detached: false,
      logLevel: 'warn',
    });
    this.stack = await untilAborted(starting, signal);
    return { baseUrl: this.stack.baseUrl, simulatorUrl: this.stack.simulatorUrl, apiKey: keys.apiKey, logDir: this.logDir };
  }

  /** Stops the processes and the nats-server and drops the databases; safe to call twice. */
  teardown(keepLogs: boolean): Promise<void> {
    this.tornDown ??= this.doTeardown(keepLogs);
    return this.tornDown;
  }

  /** Last resort on a second Ctrl-C: SIGKILL whatever is still running, no waiting. */
  kill(): void {
    stopProcesses(ownChildPids(), 'SIGKILL');
  }

  private async doTeardown(keepLogs: boolean): Promise<void> {
    const problems: string[] = [];
    const attempt = async (what: string, action: () => Promise<void>) => {
      try {
        await action();
      } catch (error) {
        problems.push(`${what}: ${(error as Error).message}`);
      }
    };
    if (this.stack) {
      const pids = this.stack.processes.map((entry) => entry.pid);
      await attempt('stopping the services', () => stopProcessesGracefully(pids));
    }
    // Interrupted while startStack was waiting: its processes are not known by pid yet.
    if (this.stackStarting) await attempt('stopping the remaining child processes', () => stopProcessesGracefully(ownChildPids()));
    if (this.nats) await attempt('stopping nats-server', () => this.nats!.stop());
    if (this.databasesCreated) await attempt(`dropping the ${this.prefix}_* databases`, () => dropTestDatabases(this.prefix));
    if (!keepLogs) rmSync(this.stateDir, { recursive: true, force: true });
    if (problems.length > 0) throw new Error(`teardown incomplete: ${problems.join('; ')}`);
  }
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** Live child processes of this process (Linux /proc); empty elsewhere. */
function ownChildPids(): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return pids;
  }
  for (const entry of entries) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...; comm may contain spaces and parentheses.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) === process.pid && state !== 'Z') pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
