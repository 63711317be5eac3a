import { describe, expect, it } from 'vitest';
import { CommonEnv, DatabaseServiceEnv } from './common-env.js';
import { WithRedisEnv } from './redis-env.js';
import { InvalidEnvironmentError, validateEnv } from './validate-env.js';

class EdgeEnv extends WithRedisEnv(CommonEnv) {}
class ServiceEnv extends WithRedisEnv(DatabaseServiceEnv) {}

describe('WithRedisEnv', () => {
  it('adds the Redis settings with their defaults to any env class, keeping the base rules', () => {
    const edge = validateEnv(EdgeEnv, {});
    expect(edge).toMatchObject({ REDIS_URL: 'redis://127.0.0.1:6379', REDIS_KEY_PREFIX: 'gw:', NATS_URL: 'nats://127.0.0.1:4222' });
    const service = validateEnv(ServiceEnv, { DATABASE_URL: 'postgresql://localhost/x', REDIS_URL: 'rediss://cache:6380' });
    expect(service.REDIS_URL).toBe('rediss://cache:6380');
    expect(service.DATABASE_URL).toBe('postgresql://localhost/x');
  });

  it('refuses a URL that is not redis:// or rediss://, next to the base problems', () => {
    let caught: unknown;
    try {
      validateEnv(ServiceEnv, { REDIS_URL: 'http://cache:6379' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidEnvironmentError);
    const problems = (caught as InvalidEnvironmentError).problems.join('\n');
    expect(problems).toMatch(/REDIS_URL/);
    expect(problems).toMatch(/DATABASE_URL/);
  });
});
