import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { createServiceAccount, createTlsMaterial, type TlsMaterial } from '@gw/provider-simulator';
import { DATABASE_SERVICES, ensureDatabase, migrate, migrationsPath, WORKSPACE_ROOT, withDatabase } from '@gw/db-tools';
import type { BusSeeds, PrincipalKeys } from './nats-auth.ts';
import { httpOk, isPortOpen, waitFor } from './ports.ts';

export type DatabaseNames = Record<(typeof DATABASE_SERVICES)[number]['name'], string>;

export const DEFAULT_DATABASE_NAMES = Object.fromEntries(
  DATABASE_SERVICES.map((service) => [service.name, service.defaultDatabase]),
) as DatabaseNames;

/**
 * The catalog files a local or test stack's inference loads, in order: the shipped catalog, then
 * the simulator's providers and `sim/*` fixtures (a production deployment loads only the first).
 */
export const DEV_CATALOG_PATHS = [
  join(WORKSPACE_ROOT, 'apps/inference/catalog/models.json'),
  join(WORKSPACE_ROOT, 'apps/inference/catalog/dev-models.json'),
] as const;

/** The plugin models of a local or test stack: the simulator's, which answer as the plugins expect without a provider key. */
export const DEV_PLUGIN_MODELS = { MODERATION_MODEL: 'sim/llama-guard', ALIGNMENT_JUDGE_MODEL: 'sim/alignment-judge' } as const;

export interface StackOptions {
  stateDir: string;
  natsUrl: string;
  /** Each service's nkey seed (NATS_NKEY_SEED) on an authenticated bus. */
  natsSeeds?: BusSeeds;
  /** The gateway's key for principals on the bus: its private half to the gateway, its public half to every service. */
  principalKeys?: PrincipalKeys;
  /** The rate limiter's Redis; `redisKeyPrefix` keeps a test run's counters apart. */
  redisUrl: string;
  redisKeyPrefix?: string;
  /** Server URL; each service gets its own database on it. */
  postgresUrl: string;
  databases: DatabaseNames;
  gatewayPort: number;
  simulatorPort: number;
  /** The provider simulator's HTTPS port, with a certificate of a CA made for this start (its Entra ID authority). */
  simulatorTlsPort: number;
  /** The search simulator (tools/search-simulator): inference's SearXNG backend and web_fetch's allowed loopback origin. */
  searchSimulatorPort: number;
  /** The local OIDC provider (tools/oidc-provider) that management links personal identities with. */
  oidcPort: number;
  /** Its one client's secret, given to the provider and to management alike. */
  oidcClientSecret: string;
  /** `npm run up` detaches so the stack outlives it; tests keep their children. */
  detached: boolean;
  logLevel: string;
  /** `BYOK_KEKS` for management only (no other service needs the key-encryption keys). */
  byokKeks: string;
  /** `DAEMON_SIGNING_KEYS` for intern-signing only (the Ed25519 keys that sign daemon requests). */
  daemonSigningKeys: string;
  /** `OPERATOR_API_KEYS` for the gateway only (`name:key`): the admin API's operator credential. */
  operatorApiKeys?: string;
  env?: Record<string, string>;
  /**
   * Two or more runs that many processes of every service and of the gateway (the replica
   * tests): named `<app>-1`, `<app>-2`, ...; gateway `n` listens on `gatewayPorts[n-1]` and
   * service replicas serve their probes on `healthPorts` (`HEALTH_PORT`).
   */
  replicas?: { count: number; gatewayPorts: number[]; healthPorts: number[] };
  /** `METRICS_PORT` per process name (`api-gateway`, `inference`, ...): each serves `GET /metrics` there. */
  metricsPorts?: Record<string, number>;
}

export interface StartedProcess {
  name: string;
  pid: number;
  child: ChildProcess;
}

export interface Stack {
  baseUrl: string;
  /** The local OIDC provider's issuer URL. */
  oidcIssuer: string;
  /** One per gateway replica (only `baseUrl` without replicas). */
  baseUrls: string[];
  simulatorUrl: string;
  searchSimulatorUrl: string;
  processes: StartedProcess[];
  /** How each process was started, so a test can start it again after stopping it. */
  specs: ProcessSpec[];
  /** Each process's Prometheus endpoint, by process name (when `metricsPorts` was given). */
  metricsUrls: Record<string, string>;
}

export async function migrateAll(postgresUrl: string, databases: DatabaseNames): Promise<void> {
  for (const service of DATABASE_SERVICES) {
    const url = withDatabase(postgresUrl, databases[service.name]);
    await ensureDatabase(url);
    await migrate(url, migrationsPath(service.name));
  }
}

export interface ProcessSpec {
  name: string;
  script: string;
  env: Record<string, string>;
  /** What answers 200 when the process is ready, if anything does. */
  readyUrl?: string;
  /** Node flags of this process (before `STACK_NODE_ARGS`' ones, which may override them). */
  nodeArgs?: readonly string[];
}

/**
 * The gateway's V8 heap flags, exactly as its container image runs it (docker/Dockerfile;
 * `gateway-node-args.spec.ts` holds the two together). The young generation capped at 16 MB per
 * semi-space: V8 sizes it from the machine's memory (64 MB here), which the gateway's
 * short-lived request garbage fills under load and keeps as RSS. The old generation grows by 40 %
 * over what the last full GC kept: on a large host V8 lets it grow to 4 times that
 * before collecting, and what it grew to stays resident.
 */
export const GATEWAY_NODE_ARGS = ['--max-semi-space-size=16', '--heap-growing-percent=40'] as const;

function processSpecs(options: StackOptions, tls: TlsFiles): ProcessSpec[] {
  const redis = { REDIS_URL: options.redisUrl, ...(options.redisKeyPrefix ? { REDIS_KEY_PREFIX: options.redisKeyPrefix } : {}) };
  const common = { NATS_URL: options.natsUrl, LOG_LEVEL: options.logLevel, ...redis, ...options.env };
  const db = (name: keyof DatabaseNames) => ({ DATABASE_URL: withDatabase(options.postgresUrl, options.databases[name]) });
  const keys = options.principalKeys;
  const verifying: Record<string, string> = keys ? { BUS_PRINCIPAL_PUBLIC_KEYS: keys.publicKey } : {};
  const seed = (user: keyof BusSeeds): Record<string, string> => ({
    ...(options.natsSeeds ? { NATS_NKEY_SEED: options.natsSeeds[user] } : {}),
    ...(user === 'api-gateway' ? (keys ? { BUS_PRINCIPAL_SIGNING_KEY: keys.signingKey } : {}) : verifying),
  });
  const simulatorUrl = `http://127.0.0.1:${options.simulatorPort}`;
  const simulatorTlsUrl = `https://127.0.0.1:${options.simulatorTlsPort}`;
  const gatewayPorts =
    options.replicas && options.replicas.count > 1 ? options.replicas.gatewayPorts.slice(0, options.replicas.count) : [options.gatewayPort];
  const callbackOf = (port: number) => `http://127.0.0.1:${port}/v1/identity/oidc/callback`;
  const consoleCallbackOf = (port: number) => `http://127.0.0.1:${port}/console/auth/callback`;
  // The console signs in with the same client (its own redirect URI); the session secret is the
  // same on every replica and new with each stack's client secret.
  const consoleOf = (port: number) => ({
    CONSOLE_OIDC_ISSUER_URL: oidcIssuerOf(options),
    CONSOLE_OIDC_CLIENT_ID: OIDC_CLIENT_ID,
    CONSOLE_OIDC_CLIENT_SECRET: options.oidcClientSecret,
    CONSOLE_PUBLIC_ORIGIN: `http://127.0.0.1:${port}`,
    CONSOLE_SESSION_SECRET: createHash('sha256').update(`console-session|${options.oidcClientSecret}`).digest('hex'),
  });
  const oidc = {
    OIDC_ISSUER_URL: oidcIssuerOf(options),
    OIDC_CLIENT_ID: OIDC_CLIENT_ID,
    OIDC_CLIENT_SECRET: options.oidcClientSecret,
    OIDC_REDIRECT_URL: callbackOf(gatewayPorts[0]!),
  };
  const searchSimulatorUrl = `http://127.0.0.1:${options.searchSimulatorPort}`;
  // Vertex AI on the simulator: a service account whose key the simulator trusts and inference holds.
  const googleAccount = googleServiceAccountFile(options.stateDir, simulatorUrl);
  // Server tools: web search on the search simulator, and web_fetch may reach it
  // although it is on loopback (an explicit allow-list entry; every other private address stays refused).
  const search = { SEARCH_BACKEND: 'searxng', SEARXNG_URL: searchSimulatorUrl, WEB_FETCH_ALLOWED_ORIGINS: searchSimulatorUrl };
  const services: ProcessSpec[] = [
    {
      name: 'management',
      script: 'apps/management/dist/main.js',
      env: { ...common, ...seed('management'), ...db('management'), BYOK_KEKS: options.byokKeks, ...oidc },
    },
    {
      name: 'inference',
      script: 'apps/inference/dist/main.js',
      env: {
        MODEL_CATALOG_PATHS: DEV_CATALOG_PATHS.join(','),
        ...DEV_PLUGIN_MODELS,
        ...common,
        ...seed('inference'),
        ...search,
        ...db('inference'),
        SIMULATOR_URL: simulatorUrl,
        SIMULATOR_TLS_URL: simulatorTlsUrl,
        // The simulator's TLS port is trusted through this one CA, made for this start (never the system's store).
        UPSTREAM_EXTRA_CA_FILE: tls.ca,
        // A BYOK credential may name the simulator as its own Azure resource; every other private address stays refused.
        BYOK_ALLOWED_ORIGINS: simulatorUrl,
        SIMULATOR_VERTEX_CREDENTIALS: googleAccount,
        // Stored generation content is sealed like BYOK secrets: the run's own KEK.
        CONTENT_KEKS: options.byokKeks,
      },
    },
    { name: 'batch', script: 'apps/batch/dist/main.js', env: { ...common, ...seed('batch'), ...db('batch') } },
    {
      name: 'intern-signing',
      script: 'apps/intern-signing/dist/main.js',
      env: { ...common, ...seed('intern-signing'), ...db('intern-signing'), DAEMON_SIGNING_KEYS: options.daemonSigningKeys },
    },
  ];
  const gateway = (port: number): ProcessSpec => ({
    name: 'api-gateway',
    script: 'apps/api-gateway/dist/main.js',
    nodeArgs: GATEWAY_NODE_ARGS,
    env: {
      ...common,
      ...seed('api-gateway'),
      ...consoleOf(port),
      PORT: String(port),
      HOST: '127.0.0.1',
      ...(options.operatorApiKeys ? { OPERATOR_API_KEYS: options.operatorApiKeys } : {}),
    },
    readyUrl: `http://127.0.0.1:${port}/health/ready`,
  });
  const simulator: ProcessSpec = {
    name: 'provider-simulator',
    script: 'tools/provider-simulator/src/main.ts',
    env: {
      SIMULATOR_PORT: String(options.simulatorPort),
      SIMULATOR_HOST: '127.0.0.1',
      SIMULATOR_GOOGLE_SERVICE_ACCOUNT: googleAccount,
      SIMULATOR_TLS_PORT: String(options.simulatorTlsPort),
      SIMULATOR_TLS_CERT_FILE: tls.cert,
      SIMULATOR_TLS_KEY_FILE: tls.key,
    },
  };
  const searchSimulator: ProcessSpec = {
    name: 'search-simulator',
    script: 'tools/search-simulator/src/main.ts',
    env: { SEARCH_SIMULATOR_PORT: String(options.searchSimulatorPort), SEARCH_SIMULATOR_HOST: '127.0.0.1' },
  };
  const oidcProvider: ProcessSpec = {
    name: 'oidc-provider',
    script: 'tools/oidc-provider/src/main.ts',
    env: {
      OIDC_PROVIDER_PORT: String(options.oidcPort),
      OIDC_PROVIDER_HOST: '127.0.0.1',
      OIDC_CLIENT_ID: OIDC_CLIENT_ID,
      OIDC_CLIENT_SECRET: options.oidcClientSecret,
      OIDC_REDIRECT_URIS: [...gatewayPorts.map(callbackOf), ...gatewayPorts.map(consoleCallbackOf)].join(','),
    },
    readyUrl: `${oidcIssuerOf(options)}/.well-known/openid-configuration`,
  };
  const replicas = options.replicas;
  if (!replicas || replicas.count < 2)
    return withMetricsPorts([simulator, searchSimulator, oidcProvider, ...services, gateway(options.gatewayPort)], options.metricsPorts);
  const healthPorts = [...replicas.healthPorts];
  const replicated: ProcessSpec[] = [];
  for (const service of services) {
    for (let index = 1; index <= replicas.count; index++) {
      const port = healthPorts.shift();
      if (port === undefined) throw new Error('not enough health ports for the replicas');
      replicated.push({
        ...service,
        name: `${service.name}-${index}`,
        env: { ...service.env, HEALTH_PORT: String(port) },
        readyUrl: `http://127.0.0.1:${port}/health/ready`,
      });
    }
  }
  const gateways = replicas.gatewayPorts
    .slice(0, replicas.count)
    .map((port, index) => ({ ...gateway(port), name: `api-gateway-${index + 1}` }));
  return [simulator, searchSimulator, oidcProvider, ...replicated, ...gateways];
}

interface TlsFiles {
  ca: string;
  cert: string;
  key: string;
}

/**
 * The simulator's TLS certificate and the CA that signed it, new at each start (the CA's key is
 * never written: it can sign nothing else), written beside the stack's state for the processes.
 */
async function writeTlsFiles(stateDir: string): Promise<TlsFiles> {
  const material: TlsMaterial = await createTlsMaterial();
  const dir = join(stateDir, 'tls');
  mkdirSync(dir, { recursive: true });
  const files = { ca: join(dir, 'ca.pem'), cert: join(dir, 'simulator-cert.pem'), key: join(dir, 'simulator-key.pem') };
  writeFileSync(files.ca, material.ca);
  writeFileSync(files.cert, material.cert);
  writeFileSync(files.key, material.key, { mode: 0o600 });
  return files;
}

/** The stack's Google service account (a fresh key, kept with the stack's state), written once. */
function googleServiceAccountFile(stateDir: string, simulatorUrl: string): string {
  const path = join(stateDir, 'google-service-account.json');
  if (!existsSync(path)) {
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(path, JSON.stringify(createServiceAccount(`${simulatorUrl}/google/oauth2/token`)), { mode: 0o600 });
  }
  return path;
}

function withMetricsPorts(specs: ProcessSpec[], ports: Record<string, number> | undefined): ProcessSpec[] {
  if (!ports) return specs;
  return specs.map((spec) => (ports[spec.name] ? { ...spec, env: { ...spec.env, METRICS_PORT: String(ports[spec.name]) } } : spec));
}

/** The client id the local stack registers at its OIDC provider. */
export const OIDC_CLIENT_ID = 'gateway-local';

export const oidcIssuerOf = (options: Pick<StackOptions, 'oidcPort'>) => `http://127.0.0.1:${options.oidcPort}`;

/**
 * Extra Node flags for every process of the stack, from `STACK_NODE_ARGS` (space-separated),
 * e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile a bench run (Node refuses
 * `--cpu-prof` in NODE_OPTIONS).
 */
function nodeArgs(): string[] {
  return (process.env.STACK_NODE_ARGS ?? '').split(' ').filter(Boolean);
}

/** Starts one process of the stack, its output appended to `<logDir>/<name>.log`. */
export function spawnProcess(spec: ProcessSpec, logDir: string, detached = false): StartedProcess {
  const log = openSync(join(logDir, `${spec.name}.log`), 'a');
  const child = spawn(process.execPath, [...(spec.nodeArgs ?? []), ...nodeArgs(), spec.script], {
    cwd: WORKSPACE_ROOT,
    env: { ...process.env, ...spec.env },
    stdio: ['ignore', log, log],
    detached,
  });
  closeSync(log);
  if (detached) child.unref();
  return { name: spec.name, pid: child.pid!, child };
}

/** The processes that serve `/metrics` (one replica each). */
export const METRICS_PROCESSES = ['api-gateway', 'management', 'inference', 'batch', 'intern-signing'] as const;

/**
 * Throws when a process of the stack has ended: waiting for it to be ready would only run into
 * the timeout (a replica that could not bind its probe port, say), and its log says why.
 */
export function assertRunning(processes: readonly StartedProcess[]): void {
  const ended = processes.find(({ child }) => child.exitCode !== null || child.signalCode !== null);
  if (ended) throw new Error(`${ended.name} ended (${ended.child.exitCode ?? ended.child.signalCode}) before the stack was ready`);
}

/** Starts the simulators, the four services and the gateway, and waits until all are ready. */
export async function startStack(options: StackOptions): Promise<Stack> {
  const logDir = join(options.stateDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  const specs = processSpecs(options, await writeTlsFiles(options.stateDir));
  const processes = specs.map((spec) => spawnProcess(spec, logDir, options.detached));
  const gatewayPorts =
    options.replicas && options.replicas.count > 1 ? options.replicas.gatewayPorts.slice(0, options.replicas.count) : [options.gatewayPort];
  const stack: Stack = {
    baseUrl: `http://127.0.0.1:${gatewayPorts[0]}/v1`,
    baseUrls: gatewayPorts.map((port) => `http://127.0.0.1:${port}/v1`),
    oidcIssuer: oidcIssuerOf(options),
    simulatorUrl: `http://127.0.0.1:${options.simulatorPort}`,
    searchSimulatorUrl: `http://127.0.0.1:${options.searchSimulatorPort}`,
    processes,
    specs,
    metricsUrls: Object.fromEntries(
      Object.entries(options.metricsPorts ?? {}).map(([name, port]) => [name, `http://127.0.0.1:${port}/metrics`]),
    ),
  };
  // Each process takes a few seconds of CPU to start: more of them on the same cores take longer.
  const startupMs = 60_000 * Math.max(1, Math.ceil(processes.length / 6));
  const whileRunning = (check: () => Promise<boolean>) => () => {
    assertRunning(processes);
    return check();
  };
  try {
    await waitFor(
      whileRunning(() => isPortOpen('127.0.0.1', options.simulatorPort)),
      'the provider simulator',
      startupMs,
    );
    await waitFor(
      whileRunning(() => isPortOpen('127.0.0.1', options.searchSimulatorPort)),
      'the search simulator',
      startupMs,
    );
    await waitFor(
      whileRunning(() => httpOk(`http://127.0.0.1:${gatewayPorts[0]}/health/services`)),
      'the gateway and every service to be ready',
      startupMs,
      250,
    );
    for (const spec of specs) {
      if (spec.readyUrl)
        await waitFor(
          whileRunning(() => httpOk(spec.readyUrl!)),
          `${spec.name} to be ready`,
          startupMs,
          250,
        );
    }
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
