import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { generateClients, WORKSPACE_ROOT, withDatabase } from '@gw/db-tools';
import { ensurePostgres, ensureRedis, natsServerBinary, REDIS_URL } from './infra.ts';
import { authenticatedNatsConfig, type BusSeeds } from './nats-auth.ts';
import { freePort, httpOk, isPortOpen, waitFor } from './ports.ts';
import { DEFAULT_DATABASE_NAMES, isAlive, METRICS_PROCESSES, migrateAll, seedKeys, startStack, stopProcessesGracefully, type SeededKeys } from './stack.ts';
import { devByokKeks, devDaemonSigningKeys, devNatsSeeds, NATS_DIR, readPidsFile, readStackFile, STATE_DIR, writePidsFile, writeStackFile, type StackFile } from './state.ts';

/**
 * `npm run up`: brings the whole system up with a working default and writes
 * `.stack/stack.json`. Running it again while the stack is healthy changes nothing.
 */
const postgresUrl = process.env.POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const DEFAULT_GATEWAY_PORT = 8080;
const DEFAULT_SIMULATOR_PORT = 8790;
/** The stack's own nats-server, beside (not on) the machine's shared one on 4222, which has no authorization. */
const DEFAULT_NATS_PORT = 4223;
const step = (text: string) => console.log(`==> ${text}`);

async function main(): Promise<void> {
  step('checking PostgreSQL, nats-server and Redis');
  await ensurePostgres(postgresUrl);
  if (!natsServerBinary()) throw new Error('nats-server is not installed (Debian: apt-get install nats-server)');
  await ensureRedis(REDIS_URL);

  const previous = readStackFile();
  const pids = readPidsFile();
  if (previous && pids && Object.values(pids).every(isAlive) && (await httpOk(previous.baseUrl.replace(/\/v1$/, '/health/services')))) {
    step('the stack is already running');
    printReady(previous);
    return;
  }
  if (pids) await stopProcessesGracefully(Object.values(pids).filter(isAlive));

  step('generating Prisma clients and building');
  generateClients();
  execFileSync(process.execPath, ['node_modules/nx/dist/bin/nx.js', 'run-many', '-t', 'build', '--output-style=static'], {
    cwd: WORKSPACE_ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });

  step('migrating databases');
  await migrateAll(postgresUrl, DEFAULT_DATABASE_NAMES);

  const managementDb = withDatabase(postgresUrl, DEFAULT_DATABASE_NAMES.management);
  const keys = (previous && (await keysStillExist(managementDb, previous)) && previous) || seedKeys(managementDb);

  const gatewayPort = await choosePort('GATEWAY_PORT', DEFAULT_GATEWAY_PORT);
  const simulatorPort = await choosePort('SIMULATOR_PORT', DEFAULT_SIMULATOR_PORT);
  const natsPort = await choosePort('NATS_PORT', DEFAULT_NATS_PORT);
  step(`starting nats-server on ${natsPort} (each service with its own nkey, ADR 0035)`);
  const natsSeeds = await devNatsSeeds();
  const nats = await startNatsServer(natsPort, natsSeeds);
  const natsUrl = `nats://127.0.0.1:${natsPort}`;
  step('starting the simulator, the services and the gateway');
  const stack = await startStack({
    stateDir: STATE_DIR,
    natsUrl,
    natsSeeds,
    redisUrl: REDIS_URL,
    postgresUrl,
    databases: DEFAULT_DATABASE_NAMES,
    gatewayPort,
    simulatorPort,
    detached: true,
    logLevel: process.env.LOG_LEVEL ?? 'info',
    byokKeks: devByokKeks(),
    daemonSigningKeys: devDaemonSigningKeys(),
    metricsPorts: Object.fromEntries(await Promise.all(METRICS_PROCESSES.map(async (name) => [name, await freePort()] as const))),
  });
  writePidsFile({ 'nats-server': nats, ...Object.fromEntries(stack.processes.map((entry) => [entry.name, entry.pid])) });

  const models = await listModels(stack.baseUrl, keys.apiKey);
  const file: StackFile = {
    baseUrl: stack.baseUrl,
    managementKey: keys.managementKey,
    apiKey: keys.apiKey,
    simulatorUrl: stack.simulatorUrl,
    natsUrl,
    metricsUrls: stack.metricsUrls,
    models,
  };
  writeStackFile(file);
  printReady(file);
}

/**
 * The stack's own nats-server with the configuration generated from the subject table
 * (`.stack/nats/nats.conf`: public keys and permissions only) and its JetStream store in
 * `.stack/nats/jetstream`, detached like the services; `npm run down` stops it.
 */
async function startNatsServer(port: number, seeds: BusSeeds): Promise<number> {
  mkdirSync(join(STATE_DIR, 'logs'), { recursive: true });
  mkdirSync(NATS_DIR, { recursive: true });
  const configPath = join(NATS_DIR, 'nats.conf');
  writeFileSync(configPath, await authenticatedNatsConfig({ host: '127.0.0.1', port, storeDir: join(NATS_DIR, 'jetstream'), seeds }));
  const log = openSync(join(STATE_DIR, 'logs', 'nats-server.log'), 'a');
  const child = spawn(natsServerBinary()!, ['-c', configPath], { stdio: ['ignore', log, log], detached: true });
  closeSync(log);
  child.unref();
  await waitFor(() => isPortOpen('127.0.0.1', port), `nats-server on ${port}`, 15_000);
  return child.pid!;
}

/**
 * The port named by `variable`, or the default; when the default is taken by something
 * else, a free port instead (stack.json records where everything ended up).
 */
async function choosePort(variable: string, fallback: number): Promise<number> {
  const requested = process.env[variable];
  const port = requested ? Number(requested) : fallback;
  if (!(await isPortOpen('127.0.0.1', port))) return port;
  if (requested) throw new Error(`Port ${port} (${variable}) is taken`);
  const free = await freePort();
  console.log(`    port ${port} is taken; using ${free} (set ${variable} to choose)`);
  return free;
}

async function keysStillExist(databaseUrl: string, keys: Pick<SeededKeys, 'managementKey' | 'apiKey'>): Promise<boolean> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const hashes = [keys.managementKey, keys.apiKey].map((secret) => createHash('sha256').update(secret).digest('hex'));
    // A workspace without credits refuses every chat (402): seed a fresh one instead.
    const { rowCount } = await client.query(
      `SELECT 1 FROM api_keys k JOIN workspaces w ON w.id = k.workspace_id
       WHERE k.hash = ANY($1) AND NOT k.disabled AND w.credits_total > w.usage_total`,
      [hashes],
    );
    return rowCount === 2;
  } finally {
    await client.end();
  }
}

async function listModels(baseUrl: string, apiKey: string): Promise<string[]> {
  const response = await fetch(`${baseUrl}/models`, { headers: { authorization: `Bearer ${apiKey}` } });
  if (!response.ok) throw new Error(`GET /v1/models answered ${response.status}`);
  const body = (await response.json()) as { data: Array<{ id: string }> };
  return body.data.map((model) => model.id);
}

function printReady(stack: StackFile): void {
  console.log(`
The gateway is up at ${stack.baseUrl}  (details in .stack/stack.json, logs in .stack/logs/)

  curl -s ${stack.baseUrl}/chat/completions \\
    -H "Authorization: Bearer ${stack.apiKey}" \\
    -H "Content-Type: application/json" \\
    -d '{"model":"${stack.models[0] ?? 'sim/gpt-4o-mini'}","messages":[{"role":"user","content":"Hello!"}]}'

Models: ${stack.models.join(', ')}
NATS: ${stack.natsUrl ?? 'nats://127.0.0.1:4223'} (authenticated; each service's nkey seed is in .stack/nats-seeds.json)
Stop everything with: npm run down`);
}

main().catch((error: unknown) => {
  console.error(`npm run up failed: ${(error as Error).message}`);
  process.exit(1);
});
