import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type { BusUser, NatsServerConfigOptions } from '@gw/contracts/bus-permissions';
import { nkeys } from '@nats-io/transport-node';

/*
 * Credentials on the bus: one nkey per service. The seeds are secrets (each
 * service gets its own as NATS_NKEY_SEED); the server configuration holds only the public
 * keys and the permissions derived from `@gw/contracts`'s bus-permissions table.
 *
 * `@gw/contracts` is imported when needed, not at load: `npm run up` and `npm test` load
 * this package before they build the libraries.
 */

export type BusSeeds = Record<BusUser, string>;

const decoder = new TextDecoder();
const encoder = new TextEncoder();
// The table alone (no decorated payload classes, which need reflect-metadata).
const contracts = () => import('@gw/contracts/bus-permissions');

/** A fresh user nkey seed for every service. */
export async function generateBusSeeds(): Promise<BusSeeds> {
  const { BUS_USERS } = await contracts();
  return Object.fromEntries(BUS_USERS.map((user) => [user, decoder.decode(nkeys.createUser().getSeed())])) as BusSeeds;
}

/**
 * The gateway's Ed25519 key for principals on the bus, per stack like the seeds: the gateway
 * signs with `signingKey` (BUS_PRINCIPAL_SIGNING_KEY), the services verify with `publicKey`
 * (BUS_PRINCIPAL_PUBLIC_KEYS). Both base64 of their 32 raw bytes.
 */
export interface PrincipalKeys {
  signingKey: string;
  publicKey: string;
}

export function generatePrincipalKeys(): PrincipalKeys {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const d = privateKey.export({ format: 'jwk' }).d!;
  const x = publicKey.export({ format: 'jwk' }).x!;
  return { signingKey: Buffer.from(d, 'base64url').toString('base64'), publicKey: Buffer.from(x, 'base64url').toString('base64') };
}

/** Whether `value` is a pair written by an earlier run. */
export function isPrincipalKeys(value: unknown): value is PrincipalKeys {
  const pair = (value ?? {}) as Partial<PrincipalKeys>;
  const is32 = (text: unknown) => typeof text === 'string' && Buffer.from(text, 'base64').length === 32;
  return is32(pair.signingKey) && is32(pair.publicKey);
}

/** The public key (`U…`) of a seed (`SU…`). */
export function publicKeyOf(seed: string): string {
  return nkeys.fromSeed(encoder.encode(seed)).getPublicKey();
}

/** Whether `value` holds a valid seed for every service (a file written by an earlier run). */
export async function isBusSeeds(value: unknown): Promise<boolean> {
  const { BUS_USERS } = await contracts();
  if (typeof value !== 'object' || value === null) return false;
  return BUS_USERS.every((user) => {
    const seed = (value as Record<string, unknown>)[user];
    if (typeof seed !== 'string') return false;
    try {
      publicKeyOf(seed);
      return seed.startsWith('SU');
    } catch {
      return false;
    }
  });
}

export interface AuthenticatedNatsConfigOptions extends Omit<NatsServerConfigOptions, 'publicKeys' | 'extraUsers'> {
  seeds: BusSeeds;
  /**
   * Integration tests only: clients without credentials are let in as a `harness` user with
   * every permission (test doubles play several services at once). The services still
   * connect with their own nkeys; end-to-end runs and `npm run up` never set this.
   */
  anonymousHarness?: boolean;
}

/** The nats-server configuration (JSON, which nats-server reads) of a run's own authenticated server. */
export async function authenticatedNatsConfig(options: AuthenticatedNatsConfigOptions): Promise<string> {
  const { BUS_USERS, natsServerConfig } = await contracts();
  const { seeds, anonymousHarness, ...server } = options;
  const publicKeys = Object.fromEntries(BUS_USERS.map((user) => [user, publicKeyOf(seeds[user])])) as Record<BusUser, string>;
  const harness = {
    user: 'harness',
    password: randomBytes(24).toString('base64url'),
    permissions: { publish: { allow: ['>'] }, subscribe: { allow: ['>'] } },
  };
  const config = natsServerConfig({ ...server, publicKeys, ...(anonymousHarness ? { extraUsers: [harness] } : {}) });
  return `${JSON.stringify(anonymousHarness ? { ...config, no_auth_user: 'harness' } : config, null, 2)}\n`;
}
