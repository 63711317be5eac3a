import { describe, expect, it } from 'vitest';
import { DatabaseServiceEnv } from './common-env.js';
import { InvalidEnvironmentError, validateEnv } from './validate-env.js';

describe('validateEnv', () => {
  it('applies defaults and converts numbers', () => {
    const env = validateEnv(DatabaseServiceEnv, { DATABASE_URL: 'postgresql://localhost/x', RPC_TIMEOUT_MS: '2500' });
    expect(env.NATS_URL).toBe('nats://127.0.0.1:4222');
    expect(env.RPC_TIMEOUT_MS).toBe(2500);
    expect(env.LOG_LEVEL).toBe('info');
  });

  it('lists every problem without echoing values', () => {
    let caught: unknown;
    try {
      validateEnv(DatabaseServiceEnv, { DATABASE_URL: 'mysql://secret-password@x', NATS_URL: 'http://x', LOG_LEVEL: 'loud' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidEnvironmentError);
    const problems = (caught as InvalidEnvironmentError).problems.join('\n');
    expect(problems).toMatch(/DATABASE_URL/);
    expect(problems).toMatch(/NATS_URL/);
    expect(problems).toMatch(/LOG_LEVEL/);
    expect(problems).not.toMatch(/secret-password/);
  });

  it('takes the JetStream replicas (1 by default) and placement tags, and refuses what no cluster has', () => {
    const base = { DATABASE_URL: 'postgresql://localhost/x' };
    expect(validateEnv(DatabaseServiceEnv, base).JETSTREAM_REPLICAS).toBe(1);
    const clustered = validateEnv(DatabaseServiceEnv, { ...base, JETSTREAM_REPLICAS: '3', JETSTREAM_PLACEMENT_TAGS: 'az:a,ssd' });
    expect([clustered.JETSTREAM_REPLICAS, clustered.JETSTREAM_PLACEMENT_TAGS]).toEqual([3, 'az:a,ssd']);
    for (const wrong of [{ JETSTREAM_REPLICAS: '0' }, { JETSTREAM_REPLICAS: '7' }, { JETSTREAM_PLACEMENT_TAGS: 'az a' }]) {
      expect(() => validateEnv(DatabaseServiceEnv, { ...base, ...wrong }), JSON.stringify(wrong)).toThrow(/JETSTREAM_/);
    }
  });

  it('checks the NATS credentials at start and never echoes the seed', () => {
    const seed = `SU${'A'.repeat(56)}`;
    const publicKey = Buffer.alloc(32, 7).toString('base64');
    const env = validateEnv(DatabaseServiceEnv, {
      DATABASE_URL: 'postgresql://localhost/x',
      NATS_NKEY_SEED: seed,
      NATS_TLS_CA_FILE: '',
      BUS_PRINCIPAL_PUBLIC_KEYS: publicKey,
    });
    expect(env.NATS_NKEY_SEED).toBe(seed);
    // On a bus with credentials the gateway's principal key is required too: without it nothing would be checked.
    expect(() => validateEnv(DatabaseServiceEnv, { DATABASE_URL: 'postgresql://localhost/x', NATS_NKEY_SEED: seed })).toThrow(
      /BUS_PRINCIPAL_PUBLIC_KEYS/,
    );
    let caught: unknown;
    try {
      validateEnv(DatabaseServiceEnv, {
        DATABASE_URL: 'postgresql://localhost/x',
        NATS_NKEY_SEED: 'SAsecret-seed',
        NATS_TLS_CERT_FILE: '/nonexistent/cert.pem',
      });
    } catch (error) {
      caught = error;
    }
    const problems = (caught as InvalidEnvironmentError).problems.join('\n');
    expect(problems).toMatch(/NATS_NKEY_SEED/);
    expect(problems).toMatch(/NATS_TLS_CERT_FILE must name an existing file/);
    expect(problems).not.toMatch(/secret-seed/);
  });
});
