import { execFileSync, spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { linkIdentity } from '@gw/oidc-provider/headless-login';
import pg from 'pg';
import { generateClients, WORKSPACE_ROOT, withDatabase } from '@gw/db-tools';
import { ensurePostgres, ensureRedis, natsServerBinary, REDIS_URL } from './infra.ts';
import { authenticatedNatsConfig, type BusSeeds } from './nats-auth.ts';
import { freePort, httpOk, isPortOpen, waitFor } from './ports.ts';
import {
  DEFAULT_DATABASE_NAMES,
  isAlive,
  METRICS_PROCESSES,
  migrateAll,
  seedKeys,
  startStack,
  stopProcessesGracefully,
  type SeededKeys,
} from './stack.ts';
import {
  devByokKeks,
  devDaemonSigningKeys,
  devOperatorKey,
  STACK_OPERATOR_NAME,
  devNatsSeeds,
  devPrincipalKeys,
  NATS_DIR,
  readPidsFile,
  readStackFile,
  STATE_DIR,
  writePidsFile,
  writeStackFile,
  type StackFile,
} from './state.ts';

/**
 * `npm run up`: brings the whole system up with a working default and writes
 * `.stack/stack.json`. Running it again while the stack is healthy changes nothing.
 */
const postgresUrl = process.env.POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
const DEFAULT_GATEWAY_PORT = 8080;
const DEFAULT_SIMULATOR_PORT = 8790;
/** The stack's own nats-server, beside (not on) the machine's shared one on 4222, which has no authorization. */
const DEFAULT_NATS_PORT = 4223;
const DEFAULT_OIDC_PORT = 8791;
/** The local OIDC provider's dev account the demo user logs in as (tools/oidc-provider). */
const DEMO_ACCOUNT = { login: 'demo', password: 'demo-password' };
/** Its subject (tools/oidc-provider accounts.ts). */
const DEMO_SUBJECT = 'demo-user';
const DEFAULT_SEARCH_SIMULATOR_PORT = 8792;
/** The provider simulator's HTTPS port (its Entra ID authority). */
const DEFAULT_SIMULATOR_TLS_PORT = 8793;
const step = (text: string) => console.log(`==> ${text}`);

async function main(): Promise<void> {
  step('checking PostgreSQL, nats-server and Redis');
  await ensurePostgres(postgresUrl);
  if (!natsServerBinary()) throw new Error('nats-server is not installed (Debian: apt-get install nats-server)');
  await ensureRedis(REDIS_URL);

  const previous = readStackFile();
  const pids = readPidsFile();
  // A stack.json from before the demo intern and identity existed means an older stack: restart it.
  if (
    previous?.internId &&
    previous.identitySubject &&
    previous.searchSimulatorUrl &&
    pids &&
    Object.values(pids).every(isAlive) &&
    (await httpOk(previous.baseUrl.replace(/\/v1$/, '/health/services')))
  ) {
    step('the stack is already running');
    printReady(previous);
    return;
  }
  if (pids) await stopProcessesGracefully(Object.values(pids).filter(isAlive));

  step('generating Prisma clients and building (a first run builds every project: about a minute)');
  generateClients();
  // nx's own lines (one per project, cached or built) show the build moving on a first run.
  execFileSync(process.execPath, ['node_modules/nx/dist/bin/nx.js', 'run-many', '-t', 'build', '--output-style=static'], {
    cwd: WORKSPACE_ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
  });

  step('migrating databases');
  await migrateAll(postgresUrl, DEFAULT_DATABASE_NAMES);

  const managementDb = withDatabase(postgresUrl, DEFAULT_DATABASE_NAMES.management);
  const keys = (previous && (await keysStillExist(managementDb, previous)) && previous) || seedKeys(managementDb);

  const gatewayPort = await choosePort('GATEWAY_PORT', DEFAULT_GATEWAY_PORT);
  const simulatorPort = await choosePort('SIMULATOR_PORT', DEFAULT_SIMULATOR_PORT);
  const simulatorTlsPort = await choosePort('SIMULATOR_TLS_PORT', DEFAULT_SIMULATOR_TLS_PORT);
  const natsPort = await choosePort('NATS_PORT', DEFAULT_NATS_PORT);
  step(`starting nats-server on ${natsPort} (each service with its own nkey)`);
  const natsSeeds = await devNatsSeeds();
  const nats = await startNatsServer(natsPort, natsSeeds);
  const natsUrl = `nats://127.0.0.1:${natsPort}`;
  const oidcPort = await choosePort('OIDC_PROVIDER_PORT', DEFAULT_OIDC_PORT);
  const searchSimulatorPort = await choosePort('SEARCH_SIMULATOR_PORT', DEFAULT_SEARCH_SIMULATOR_PORT);
  step('starting the simulators, the OIDC provider, the services and the gateway');
  const started = Date.now();
  const waiting = setInterval(
    () => console.log(`    waiting for every process to be ready: ${Math.round((Date.now() - started) / 1000)} s`),
    5_000,
  );
  const stack = await startStack({
    stateDir: STATE_DIR,
    natsUrl,
    natsSeeds,
    principalKeys: devPrincipalKeys(),
    redisUrl: REDIS_URL,
    postgresUrl,
    databases: DEFAULT_DATABASE_NAMES,
    gatewayPort,
    simulatorPort,
    simulatorTlsPort,
    searchSimulatorPort,
    oidcPort,
    // A client secret per start: provider and management are started together with it.
    oidcClientSecret: randomBytes(24).toString('base64url'),
    detached: true,
    logLevel: process.env.LOG_LEVEL ?? 'info',
    byokKeks: devByokKeks(),
    daemonSigningKeys: devDaemonSigningKeys(),
    operatorApiKeys: `${STACK_OPERATOR_NAME}:${devOperatorKey()}`,
    metricsPorts: Object.fromEntries(await Promise.all(METRICS_PROCESSES.map(async (name) => [name, await freePort()] as const))),
  }).finally(() => clearInterval(waiting));
  console.log(`    ready after ${((Date.now() - started) / 1000).toFixed(1)} s`);
  writePidsFile({ 'nats-server': nats, ...Object.fromEntries(stack.processes.map((entry) => [entry.name, entry.pid])) });

  const models = await listModels(stack.baseUrl, keys.apiKey);
  step('linking the demo user to the local OIDC provider and making the demo intern');
  const identitySubject = await ensureDemoIdentity(stack.baseUrl, keys.apiKey, managementDb);
  const intern = await ensureDemoIntern(stack.baseUrl, keys, previous);
  const file: StackFile = {
    baseUrl: stack.baseUrl,
    managementKey: keys.managementKey,
    operatorKey: devOperatorKey(),
    apiKey: keys.apiKey,
    internId: intern.internId,
    internKey: intern.internKey,
    identitySubject,
    oidcIssuer: stack.oidcIssuer,
    simulatorUrl: stack.simulatorUrl,
    searchSimulatorUrl: stack.searchSimulatorUrl,
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

/** The parts of the gateway's answers `up` reads. */
interface GatewayBody {
  data?: { identity?: { subject: string } | null } & Array<{ id: string; name: string }>;
  id?: string;
  key?: string;
}

async function gatewayCall(
  baseUrl: string,
  key: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: GatewayBody | undefined }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as GatewayBody) : undefined };
}

/**
 * The demo user holds a personal identity, so the demo key can sign at once: when it has none,
 * the real login is driven headlessly (start at the gateway, the provider's login form and
 * consent, the gateway's callback). Returns the linked subject.
 */
async function ensureDemoIdentity(baseUrl: string, apiKey: string, managementDb: string): Promise<string> {
  const current = await gatewayCall(baseUrl, apiKey, '/identity');
  if (current.status !== 200) throw new Error(`GET /v1/identity answered ${current.status}`);
  if (!current.body?.data?.identity) {
    await releaseDemoIdentity(managementDb);
    await linkIdentity({ baseUrl, apiKey, ...DEMO_ACCOUNT });
  }
  const linked = await gatewayCall(baseUrl, apiKey, '/identity');
  const subject = linked.body?.data?.identity?.subject;
  if (!subject) throw new Error('the demo user is still not linked after the login');
  return subject;
}

/**
 * The local provider's demo identity belongs to the demo user of the newest `npm run up`. A
 * demo user seeded earlier (another clone sharing these dev databases, or keys that ran out of
 * credits) may still hold it, and one identity links one user (409 identity_in_use): it is
 * released from that older user first. Dev databases only; never a production path.
 */
async function releaseDemoIdentity(managementDb: string): Promise<void> {
  const client = new pg.Client({ connectionString: managementDb });
  await client.connect();
  try {
    await client.query(`UPDATE users SET oidc_issuer = NULL, oidc_subject = NULL, oidc_linked_at = NULL WHERE oidc_subject = $1`, [
      DEMO_SUBJECT,
    ]);
  } finally {
    await client.end();
  }
}

/** A demo intern in the demo workspace and its own key, reused while both still work. */
async function ensureDemoIntern(
  baseUrl: string,
  keys: Pick<SeededKeys, 'apiKey' | 'managementKey'>,
  previous: StackFile | undefined,
): Promise<{ internId: string; internKey: string }> {
  if (previous?.internId && previous.internKey && previous.apiKey === keys.apiKey) {
    const seen = await gatewayCall(baseUrl, previous.internKey, `/interns/${previous.internId}`);
    if (seen.status === 200) return { internId: previous.internId, internKey: previous.internKey };
  }
  let intern = await gatewayCall(baseUrl, keys.apiKey, '/interns', { name: 'demo-intern', description: 'The demo intern of npm run up' });
  if (intern.status === 409) {
    // Made by an earlier run whose stack.json is gone: the same intern, a new key.
    const list = await gatewayCall(baseUrl, keys.apiKey, '/interns?limit=500');
    intern = { status: 200, body: list.body?.data?.find((entry) => entry.name === 'demo-intern') };
  }
  if (intern.status >= 300 || !intern.body?.id) throw new Error(`creating the demo intern answered ${intern.status}`);
  const key = await gatewayCall(baseUrl, keys.managementKey, '/keys', { name: 'Demo intern key', intern_id: intern.body.id });
  if (key.status !== 201) throw new Error(`creating the demo intern's key answered ${key.status}`);
  if (!key.body?.key) throw new Error("the demo intern's key came without its secret");
  return { internId: intern.body.id, internKey: key.body.key };
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

Sign for the demo intern (the demo user is linked to the local OIDC provider as "${stack.identitySubject}"):

  curl -s ${stack.baseUrl}/interns/${stack.internId}/daemon/sign \\
    -H "Authorization: Bearer ${stack.apiKey}" -H "Content-Type: application/json" \\
    -d '{"bodySha256":"'$(printf '{}' | sha256sum | cut -d' ' -f1)'"}'

Models: ${stack.models.join(', ')}
NATS: ${stack.natsUrl ?? 'nats://127.0.0.1:4223'} (authenticated; each service's nkey seed is in .stack/nats-seeds.json)
Stop everything with: npm run down`);
}

main().catch((error: unknown) => {
  console.error(`npm run up failed: ${(error as Error).message}`);
  process.exit(1);
});
