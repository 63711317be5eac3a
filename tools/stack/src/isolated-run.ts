import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePostgres, ensureRedis, REDIS_URL } from './infra.ts';
import {
  createTestDatabases,
  dropTestDatabases,
  POSTGRES_URL,
  PrivateNatsServer,
  runPrefix,
  testDatabaseNames,
  testDatabaseUrl,
} from './isolation.ts';
import { generateBusSeeds, generatePrincipalKeys, type BusSeeds, type PrincipalKeys } from './nats-auth.ts';
import { PrivateNatsCluster } from './nats-cluster.ts';
import { freePort, httpOk, waitFor } from './ports.ts';
import { newOperatorKey, STACK_OPERATOR_NAME } from './state.ts';
import {
  METRICS_PROCESSES,
  seedKeys,
  spawnProcess,
  startStack,
  stopProcesses,
  stopProcessesGracefully,
  type Stack,
  type StartedProcess,
} from './stack.ts';

/** SIGN_RATE_LIMIT of an e2e stack (per intern and minute): the e2e tests exhaust it on purpose. */
export const E2E_SIGN_RATE_LIMIT = 40;

/** STREAM_STALL_TIMEOUT_MS of an e2e stack: how long a stream whose client reads nothing is kept. */
export const E2E_STREAM_STALL_TIMEOUT_MS = 2_000;

/*
 * A whole stack of the run's own (end-to-end tests, the bench): its own databases, a private
 * nats-server, free ports, seeded keys, the built services as child processes.
 */

export interface IsolatedStack {
  baseUrl: string;
  /** One per gateway replica; `[baseUrl]` without replicas. */
  baseUrls: string[];
  simulatorUrl: string;
  searchSimulatorUrl: string;
  /** The run's local OIDC provider (tools/oidc-provider), which management links identities with. */
  oidcIssuer: string;
  apiKey: string;
  managementKey: string;
  /** The run's operator key (the admin API's credential, named `platform`). */
  operatorKey: string;
  workspaceId: string;
  logDir: string;
  /** Every service's Redis key prefix: a second gateway with it shares the run's cache and limits. */
  redisKeyPrefix: string;
  natsUrl: string;
  /** Each service's nkey seed: the bus requires them; a test plays a service with its seed. */
  natsSeeds: BusSeeds;
  /** The gateway's key for principals on the bus (a test signs as the gateway, or forges, with it). */
  principalKeys: PrincipalKeys;
  managementDatabaseUrl: string;
  inferenceDatabaseUrl: string;
  /** `GET /metrics` of each process by name (`api-gateway`, `inference`, ...); empty with replicas. */
  metricsUrls: Record<string, string>;
}

/**
 * Owns everything a run starts, so that `teardown()` can undo exactly what was set up,
 * whichever step failed or was interrupted.
 */
export class IsolatedStackRun {
  readonly prefix: string;
  readonly stateDir: string;
  /** The run's own Ed25519 signing key (e2e tests verify signatures against its JWKS). */
  readonly daemonSigningKeys = `e2e-1:${randomBytes(32).toString('base64')}`;
  /** The run's own operator key. */
  readonly operatorKey = newOperatorKey();
  private databasesCreated = false;
  private stackStarting = false;
  private nats: PrivateNatsServer | PrivateNatsCluster | undefined;
  private stack: Stack | undefined;
  private tornDown: Promise<void> | undefined;
  /** The stack did not come up: its error names the log folder, so teardown keeps it. */
  private startFailed = false;

  /** `kind` names the run in database and folder names (`e2e`, `bench`). */
  private readonly kind: string;

  constructor(kind: string) {
    this.kind = kind;
    this.prefix = runPrefix(kind);
    this.stateDir = mkdtempSync(join(tmpdir(), `gw-${kind}-`));
  }

  get logDir(): string {
    return join(this.stateDir, 'logs');
  }

  /**
   * The short steps run to completion and the signal is checked between them (so teardown
   * never races a half-made database); the wait for the stack to be ready (up to a minute) is
   * abandoned at once on abort, and teardown then ends the processes it had spawned.
   */
  async start(
    signal: AbortSignal,
    options: {
      replicas?: number;
      env?: Record<string, string>;
      /** 3: a NATS cluster of three nodes, the services with every URL and JETSTREAM_REPLICAS=3. */
      natsNodes?: number;
      /** The PostgreSQL server the services connect to (a relay a test cuts); the databases are made directly. */
      servicesPostgresUrl?: string;
      /** The Redis the services use (a test's own server); default the machine's. */
      redisUrl?: string;
    } = {},
  ): Promise<IsolatedStack> {
    await ensurePostgres(POSTGRES_URL);
    await ensureRedis(REDIS_URL);
    signal.throwIfAborted();
    this.databasesCreated = true;
    await createTestDatabases(this.prefix);
    signal.throwIfAborted();
    // The run's bus is configured as production's: every service with its own nkey and the
    // permissions of the table in @gw/contracts, anonymous clients refused.
    const natsSeeds = await generateBusSeeds();
    const principalKeys = generatePrincipalKeys();
    const natsNodes = options.natsNodes ?? 1;
    this.nats =
      natsNodes > 1
        ? await PrivateNatsCluster.start({ size: natsNodes, seeds: natsSeeds })
        : await PrivateNatsServer.start({ seeds: natsSeeds });
    signal.throwIfAborted();
    const keys = seedKeys(testDatabaseUrl(this.prefix, 'management'));
    signal.throwIfAborted();
    this.stackStarting = true;
    const simulatorPort = await freePort();
    const count = options.replicas ?? 1;
    const ports = async (n: number) => {
      const list: number[] = [];
      for (let index = 0; index < n; index++) list.push(await freePort());
      return list;
    };
    const replicas = count > 1 ? { count, gatewayPorts: await ports(count), healthPorts: await ports(count * 4) } : undefined;
    const starting = startStack({
      stateDir: this.stateDir,
      natsUrl: this.nats.url,
      natsSeeds,
      principalKeys,
      redisUrl: options.redisUrl ?? REDIS_URL,
      redisKeyPrefix: `${this.prefix}:`,
      postgresUrl: options.servicesPostgresUrl ?? POSTGRES_URL,
      databases: testDatabaseNames(this.prefix),
      gatewayPort: await freePort(),
      simulatorPort,
      simulatorTlsPort: await freePort(),
      searchSimulatorPort: await freePort(),
      oidcPort: await freePort(),
      oidcClientSecret: randomBytes(24).toString('base64url'),
      // The catalog's `openai` provider, keyless and pointed at the simulator: the gateway cannot
      // call it, a workspace's BYOK key can (tests of BYOK-only providers, offline).
      // Intern turns: a small window the e2e tests can exhaust, none the bench would hit.
      env: {
        OPENAI_BASE_URL: `http://127.0.0.1:${simulatorPort}/openai/v1`,
        OPENAI_API_KEY: '',
        SIGN_RATE_LIMIT: this.kind === 'e2e' ? String(E2E_SIGN_RATE_LIMIT) : '10000000',
        // Per-key limits: the suite and the bench share a few keys far past the
        // defaults; the e2e tests of the limits give their own keys small overrides.
        KEY_RATE_LIMIT_RPM: '10000000',
        KEY_CONCURRENCY_LIMIT: '1000000',
        // A client that reads nothing is cut after this long (the e2e test of stalled readers).
        ...(this.kind === 'e2e' ? { STREAM_STALL_TIMEOUT_MS: String(E2E_STREAM_STALL_TIMEOUT_MS) } : {}),
        ...(natsNodes > 1 ? { JETSTREAM_REPLICAS: String(Math.min(3, natsNodes)) } : {}),
        ...options.env,
      },
      replicas,
      metricsPorts: replicas
        ? undefined
        : Object.fromEntries(await Promise.all(METRICS_PROCESSES.map(async (name) => [name, await freePort()] as const))),
      detached: false,
      logLevel: 'info',
      // A KEK of the run's own: its databases, and so its credentials, die with it.
      byokKeks: `e2e:${randomBytes(32).toString('base64')}`,
      daemonSigningKeys: this.daemonSigningKeys,
      operatorApiKeys: `${STACK_OPERATOR_NAME}:${this.operatorKey}`,
    });
    this.stack = await untilAborted(starting, signal).catch((error: unknown) => {
      this.startFailed = !signal.aborted;
      throw error;
    });
    return {
      baseUrl: this.stack.baseUrl,
      baseUrls: this.stack.baseUrls,
      simulatorUrl: this.stack.simulatorUrl,
      searchSimulatorUrl: this.stack.searchSimulatorUrl,
      oidcIssuer: this.stack.oidcIssuer,
      apiKey: keys.apiKey,
      managementKey: keys.managementKey,
      operatorKey: this.operatorKey,
      workspaceId: keys.workspaceId,
      logDir: this.logDir,
      redisKeyPrefix: `${this.prefix}:`,
      natsUrl: this.nats.url,
      natsSeeds,
      principalKeys,
      managementDatabaseUrl: testDatabaseUrl(this.prefix, 'management'),
      inferenceDatabaseUrl: testDatabaseUrl(this.prefix, 'inference'),
      metricsUrls: this.stack.metricsUrls,
    };
  }

  /** Every process of the running stack by name, nats-server included (the bench reads their CPU time). */
  processes(): Array<{ name: string; pid: number }> {
    const services = (this.stack?.processes ?? []).map(({ name, pid }) => ({ name, pid }));
    if (this.nats instanceof PrivateNatsCluster)
      return [
        ...services,
        ...this.nats.nodes.flatMap((node) => (node.pid === undefined ? [] : [{ name: `nats-${node.name}`, pid: node.pid }])),
      ];
    const natsPid = this.nats?.pid;
    return natsPid === undefined ? services : [...services, { name: 'nats-server', pid: natsPid }];
  }

  /** The run's NATS cluster (started with `natsNodes`), whose nodes a test stops and starts. */
  natsCluster(): PrivateNatsCluster {
    if (!(this.nats instanceof PrivateNatsCluster)) throw new Error('this run has a single nats-server');
    return this.nats;
  }

  /** The running process of that name (`inference-1`, `api-gateway-2`, ...). */
  process(name: string): StartedProcess {
    const found = this.stack?.processes.find((entry) => entry.name === name);
    if (!found) throw new Error(`no process named ${name}`);
    return found;
  }

  /** Sends `signal` to the named process and resolves with its exit code (or signal) once it exited. */
  async stopProcess(name: string, signal: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    const { child } = this.process(name);
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode });
      else child.once('exit', (code, exitSignal) => resolve({ code, signal: exitSignal }));
    });
    child.kill(signal);
    return exited;
  }

  /** Starts the named process again as it was started first, and waits until it is ready. */
  async restartProcess(name: string): Promise<void> {
    const stack = this.stack!;
    const spec = stack.specs.find((entry) => entry.name === name);
    if (!spec) throw new Error(`no process named ${name}`);
    const started = spawnProcess(spec, this.logDir);
    stack.processes = stack.processes.map((entry) => (entry.name === name ? started : entry));
    if (spec.readyUrl) await waitFor(() => httpOk(spec.readyUrl!), `${name} to be ready again`, 120_000, 100);
  }

  /**
   * Starts one more replica of a service of a single-replica stack, exactly as the first was
   * started, named `<name>-2`, with probe and metrics ports of its own: two replicas of one
   * service without doubling every process. Resolves with its metrics URL once it is ready.
   */
  async startExtraReplica(name: string): Promise<string> {
    const stack = this.stack!;
    const spec = stack.specs.find((entry) => entry.name === name);
    if (!spec) throw new Error(`no process named ${name}`);
    const [healthPort, metricsPort] = [await freePort(), await freePort()];
    const replica = {
      ...spec,
      name: `${name}-2`,
      env: { ...spec.env, HEALTH_PORT: String(healthPort), METRICS_PORT: String(metricsPort) },
      readyUrl: `http://127.0.0.1:${healthPort}/health/ready`,
    };
    stack.specs.push(replica);
    stack.processes.push(spawnProcess(replica, this.logDir));
    await waitFor(() => httpOk(replica.readyUrl), `${replica.name} to be ready`, 180_000, 250);
    return `http://127.0.0.1:${metricsPort}/metrics`;
  }

  /**
   * Stops the processes and the nats-server and drops the databases; safe to call twice. The logs
   * go unless `keepLogs`, or the stack failed to start (its error points at them).
   */
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
    if (!keepLogs && !this.startFailed) rmSync(this.stateDir, { recursive: true, force: true });
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
