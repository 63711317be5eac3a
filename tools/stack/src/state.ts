import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKSPACE_ROOT } from '@gw/db-tools';
import { generateBusSeeds, generatePrincipalKeys, isBusSeeds, isPrincipalKeys, type BusSeeds, type PrincipalKeys } from './nats-auth.ts';

export const STATE_DIR = join(WORKSPACE_ROOT, '.stack');
const STACK_FILE = join(STATE_DIR, 'stack.json');
const PIDS_FILE = join(STATE_DIR, 'pids.json');
const DEV_KEKS_FILE = join(STATE_DIR, 'byok-keks');
const DEV_SIGNING_KEYS_FILE = join(STATE_DIR, 'daemon-signing-keys');
const DEV_OPERATOR_KEY_FILE = join(STATE_DIR, 'operator-key');
const DEV_NATS_SEEDS_FILE = join(STATE_DIR, 'nats-seeds.json');
const DEV_PRINCIPAL_KEYS_FILE = join(STATE_DIR, 'principal-keys.json');
/** The stack's own nats-server: its configuration and JetStream store. */
export const NATS_DIR = join(STATE_DIR, 'nats');

/** `.stack/stack.json`: what a client needs to call the running stack. */
export interface StackFile {
  baseUrl: string;
  managementKey: string;
  /** The operator's key (`OPERATOR_API_KEYS` as `platform:<key>`): the admin API, `/v1/admin/...`. */
  operatorKey?: string;
  /** A standard key of the demo user, whose personal identity is linked (it can sign). */
  apiKey: string;
  /** A demo intern in the demo workspace, and its own key (kind `intern`: sees that intern only). */
  internId: string;
  internKey: string;
  /** The OIDC subject the demo user is linked to: what its signatures name as `x-ori-invoke-user`. */
  identitySubject: string;
  /** The local OIDC provider (tools/oidc-provider). */
  oidcIssuer: string;
  simulatorUrl: string;
  /** The stack's own nats-server (authenticated: each service's seed is in `.stack/nats-seeds.json`). */
  natsUrl?: string;
  /** Prometheus endpoints (`GET /metrics`) of the gateway and each service, by process name. */
  metricsUrls?: Record<string, string>;
  searchSimulatorUrl?: string;
  models: string[];
}

export type PidsFile = Record<string, number>;

function readJson<T>(path: string): T | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

export const readStackFile = () => readJson<StackFile>(STACK_FILE);
export const readPidsFile = () => readJson<PidsFile>(PIDS_FILE);

export function writeStackFile(stack: StackFile): void {
  mkdirSync(STATE_DIR, { recursive: true });
  writeFileSync(STACK_FILE, `${JSON.stringify(stack, null, 2)}\n`, { mode: 0o600 });
}

export function writePidsFile(pids: PidsFile): void {
  mkdirSync(STATE_DIR, { recursive: true });
  writeFileSync(PIDS_FILE, `${JSON.stringify(pids, null, 2)}\n`);
}

export function removePidsFile(): void {
  rmSync(PIDS_FILE, { force: true });
}

/**
 * `BYOK_KEKS` for the local stack: the environment's when set, else a random dev KEK made
 * once and kept in `.stack/byok-keks` (gitignored, mode 600), so a restarted stack can still
 * decrypt the credentials it stored. Deleting the file makes those credentials unreadable.
 */
export function devByokKeks(): string {
  if (process.env.BYOK_KEKS) return process.env.BYOK_KEKS;
  if (existsSync(DEV_KEKS_FILE)) return readFileSync(DEV_KEKS_FILE, 'utf8').trim();
  const keks = `dev1:${randomBytes(32).toString('base64')}`;
  mkdirSync(STATE_DIR, { recursive: true });
  writeFileSync(DEV_KEKS_FILE, `${keks}\n`, { mode: 0o600, flag: 'wx' });
  return keks;
}

/**
 * `DAEMON_SIGNING_KEYS` for the local stack: the environment's when set, else a random dev
 * Ed25519 seed made once and kept in `.stack/daemon-signing-keys` (gitignored, mode 600), so
 * daemons that cached the JWKS keep verifying across restarts.
 */
export function devDaemonSigningKeys(): string {
  if (process.env.DAEMON_SIGNING_KEYS) return process.env.DAEMON_SIGNING_KEYS;
  if (existsSync(DEV_SIGNING_KEYS_FILE)) return readFileSync(DEV_SIGNING_KEYS_FILE, 'utf8').trim();
  const keys = `dev-${new Date().toISOString().slice(0, 10)}:${randomBytes(32).toString('base64')}`;
  mkdirSync(STATE_DIR, { recursive: true });
  writeFileSync(DEV_SIGNING_KEYS_FILE, `${keys}\n`, { mode: 0o600, flag: 'wx' });
  return keys;
}

/**
 * The local stack's operator key (the admin API's credential, not a workspace's): made once and
 * kept in `.stack/operator-key` (gitignored, mode 600), given to the gateway as `platform:<key>`.
 */
export function devOperatorKey(): string {
  if (existsSync(DEV_OPERATOR_KEY_FILE)) return readFileSync(DEV_OPERATOR_KEY_FILE, 'utf8').trim();
  const key = newOperatorKey();
  mkdirSync(STATE_DIR, { recursive: true });
  writeFileSync(DEV_OPERATOR_KEY_FILE, `${key}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}

export function newOperatorKey(): string {
  return `gwop-${randomBytes(32).toString('base64url')}`;
}

/** The operator credential's name in the stacks `npm run up` and the tests start (who made a catalog change). */
export const STACK_OPERATOR_NAME = 'platform';

/**
 * Each service's NATS nkey seed for the local stack: made once and kept in
 * `.stack/nats-seeds.json` (gitignored, mode 600), so a restarted stack keeps its identities.
 * The server's configuration is written from their public keys on every `npm run up`.
 */
export async function devNatsSeeds(): Promise<BusSeeds> {
  const existing = readJson<unknown>(DEV_NATS_SEEDS_FILE);
  if (await isBusSeeds(existing)) return existing as BusSeeds;
  const seeds = await generateBusSeeds();
  mkdirSync(STATE_DIR, { recursive: true });
  writeFileSync(DEV_NATS_SEEDS_FILE, `${JSON.stringify(seeds, null, 2)}\n`, { mode: 0o600 });
  return seeds;
}

/**
 * The gateway's key for principals on the bus for the local stack: made once and kept in
 * `.stack/principal-keys.json` (gitignored, mode 600), beside the nkey seeds.
 */
export function devPrincipalKeys(): PrincipalKeys {
  const existing = readJson<unknown>(DEV_PRINCIPAL_KEYS_FILE);
  if (isPrincipalKeys(existing)) return existing;
  const keys = generatePrincipalKeys();
  mkdirSync(STATE_DIR, { recursive: true });
  writeFileSync(DEV_PRINCIPAL_KEYS_FILE, `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  return keys;
}
