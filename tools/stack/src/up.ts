import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { generateClients, WORKSPACE_ROOT, withDatabase } from '@gw/db-tools';
import { ensureNats, ensurePostgres, ensureRedis, REDIS_URL } from './infra.ts';
import { freePort, httpOk, isPortOpen } from './ports.ts';
import { DEFAULT_DATABASE_NAMES, isAlive, migrateAll, seedKeys, startStack, stopProcessesGracefully, type SeededKeys } from './stack.ts';
import { devByokKeks, devDaemonSigningKeys, readPidsFile, readStackFile, STATE_DIR, writePidsFile, writeStackFile, type StackFile } from './state.ts';

/**
 * `npm run up`: brings the whole system up with a working default and writes
 * `.stack/stack.json`. Running it again while the stack is healthy changes nothing.
 */
const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const postgresUrl = process.env.POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const DEFAULT_GATEWAY_PORT = 8080;
const DEFAULT_SIMULATOR_PORT = 8790;
const DEFAULT_SEARCH_SIMULATOR_PORT = 8791;
const step = (text: string) => console.log(`==> ${text}`);

async function main(): Promise<void> {
  step('checking PostgreSQL, NATS and Redis');
  await ensurePostgres(postgresUrl);
  await ensureNats(natsUrl);
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
  const searchSimulatorPort = await choosePort('SEARCH_SIMULATOR_PORT', DEFAULT_SEARCH_SIMULATOR_PORT);
  step('starting the simulator, the services and the gateway');
  const stack = await startStack({
    stateDir: STATE_DIR,
    natsUrl,
    redisUrl: REDIS_URL,
    postgresUrl,
    databases: DEFAULT_DATABASE_NAMES,
    gatewayPort,
    simulatorPort,
    searchSimulatorPort,
    detached: true,
    logLevel: process.env.LOG_LEVEL ?? 'info',
    byokKeks: devByokKeks(),
    daemonSigningKeys: devDaemonSigningKeys(),
  });
  writePidsFile(Object.fromEntries(stack.processes.map((entry) => [entry.name, entry.pid])));

  const models = await listModels(stack.baseUrl, keys.apiKey);
  const file: StackFile = {
    baseUrl: stack.baseUrl,
    managementKey: keys.managementKey,
    apiKey: keys.apiKey,
    simulatorUrl: stack.simulatorUrl,
    searchSimulatorUrl: stack.searchSimulatorUrl,
    models,
  };
  writeStackFile(file);
  printReady(file);
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
Stop everything with: npm run down`);
}

main().catch((error: unknown) => {
  console.error(`npm run up failed: ${(error as Error).message}`);
  process.exit(1);
});
