import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { DATABASE_SERVICES, ensureDatabase, migrate, migrationsPath, WORKSPACE_ROOT, withDatabase } from '@gw/db-tools';
import { httpOk, isPortOpen, waitFor } from './ports.ts';

export type DatabaseNames = Record<(typeof DATABASE_SERVICES)[number]['name'], string>;

export const DEFAULT_DATABASE_NAMES = Object.fromEntries(
  DATABASE_SERVICES.map((service) => [service.name, service.defaultDatabase]),
) as DatabaseNames;

export interface StackOptions {
  stateDir: string;
  natsUrl: string;
  /** Server URL; each service gets its own database on it. */
  postgresUrl: string;
  databases: DatabaseNames;
  gatewayPort: number;
  simulatorPort: number;
  /** `npm run up` detaches so the stack outlives it; tests keep their children. */
  detached: boolean;
  logLevel: string;
  /** `BYOK_KEKS` for management only (no other service needs the key-encryption keys). */
  byokKeks: string;
  env?: Record<string, string>;
}

export interface StartedProcess {
  name: string;
  pid: number;
  child: ChildProcess;
}

export interface Stack {
  baseUrl: string;
  simulatorUrl: string;
  processes: StartedProcess[];
}

export async function migrateAll(postgresUrl: string, databases: DatabaseNames): Promise<void> {
  for (const service of DATABASE_SERVICES) {
    const url = withDatabase(postgresUrl, databases[service.name]);
    await ensureDatabase(url);
    await migrate(url, migrationsPath(service.name));
  }
}

interface ProcessSpec {
  name: string;
  script: string;
  env: Record<string, string>;
}

function processSpecs(options: StackOptions): ProcessSpec[] {
  const common = { NATS_URL: options.natsUrl, LOG_LEVEL: options.logLevel, ...options.env };
  const db = (name: keyof DatabaseNames) => ({ DATABASE_URL: withDatabase(options.postgresUrl, options.databases[name]) });
  const simulatorUrl = `http://127.0.0.1:${options.simulatorPort}`;
  return [
    { name: 'provider-simulator', script: 'tools/provider-simulator/src/main.ts', env: { SIMULATOR_PORT: String(options.simulatorPort), SIMULATOR_HOST: '127.0.0.1' } },
    { name: 'management', script: 'apps/management/dist/main.js', env: { ...common, ...db('management'), BYOK_KEKS: options.byokKeks } },
    { name: 'inference', script: 'apps/inference/dist/main.js', env: { ...common, ...db('inference'), SIMULATOR_URL: simulatorUrl } },
    { name: 'batch', script: 'apps/batch/dist/main.js', env: { ...common, ...db('batch') } },
    { name: 'intern-signing', script: 'apps/intern-signing/dist/main.js', env: { ...common, ...db('intern-signing') } },
    { name: 'api-gateway', script: 'apps/api-gateway/dist/main.js', env: { ...common, PORT: String(options.gatewayPort), HOST: '127.0.0.1' } },
  ];
}

/** Starts the simulator, the four services and the gateway, and waits until all are ready. */
export async function startStack(options: StackOptions): Promise<Stack> {
  const logDir = join(options.stateDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const processes: StartedProcess[] = [];
  for (const spec of processSpecs(options)) {
    const log = openSync(join(logDir, `${spec.name}.log`), 'a');
    const child = spawn(process.execPath, [spec.script], {
      cwd: WORKSPACE_ROOT,
      env: { ...process.env, ...spec.env },
      stdio: ['ignore', log, log],
      detached: options.detached,
    });
    closeSync(log);
    if (options.detached) child.unref();
    processes.push({ name: spec.name, pid: child.pid!, child });
  }
  const stack: Stack = {
    baseUrl: `http://127.0.0.1:${options.gatewayPort}/v1`,
    simulatorUrl: `http://127.0.0.1:${options.simulatorPort}`,
    processes,
  };
  try {
    await waitFor(() => isPortOpen('127.0.0.1', options.simulatorPort), 'the provider simulator', 20_000);
    await waitFor(() => httpOk(`http://127.0.0.1:${options.gatewayPort}/health/services`), 'the gateway and every service to be ready', 60_000, 250);
  } catch (error) {
    stopProcesses(processes.map((entry) => entry.pid));
    throw new Error(`${(error as Error).message}; see the logs in ${logDir}`, { cause: error });
  }
  return stack;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM (graceful shutdown), then SIGKILL for anything still running after 5 s. */
export async function stopProcessesGracefully(pids: number[]): Promise<void> {
  stopProcesses(pids);
  const deadline = Date.now() + 5_000;
  while (pids.some(isAlive) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  for (const pid of pids.filter(isAlive)) process.kill(pid, 'SIGKILL');
}

export function stopProcesses(pids: number[], signal: NodeJS.Signals = 'SIGTERM'): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}

export interface SeededKeys {
  managementKey: string;
  apiKey: string;
  workspaceId: string;
}

interface CreatedKey {
  secret: string;
  hash: string;
  workspaceId: string;
  userId: string;
}

/**
 * A demo workspace with SEED_CREDITS credits (default 100), a management key and a standard
 * key, made by management's own CLI.
 */
export function seedKeys(managementDatabaseUrl: string): SeededKeys {
  const run = (args: string[]): CreatedKey =>
    JSON.parse(
      execFileSync(process.execPath, ['apps/management/dist/cli/create-key.js', '--json', ...args], {
        cwd: WORKSPACE_ROOT,
        env: { ...process.env, MANAGEMENT_DATABASE_URL: managementDatabaseUrl },
        encoding: 'utf8',
      }),
    ) as CreatedKey;
  // The demo workspace gets credits, or every chat would be refused with 402.
  const management = run(['--management', '--name', 'Demo management key', '--credits', process.env.SEED_CREDITS ?? '100']);
  const standard = run(['--standard', '--name', 'Demo key', '--workspace', management.workspaceId, '--user', management.userId]);
  return { managementKey: management.secret, apiKey: standard.secret, workspaceId: management.workspaceId };
}
