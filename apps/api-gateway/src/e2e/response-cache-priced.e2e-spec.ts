import { freePort, httpOk, REDIS_URL, spawnProcess, waitFor, type StartedProcess } from '@gw/stack';
import OpenAI from 'openai';
import pg from 'pg';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stack } from './e2e-helpers.js';

/**
 * A cache hit priced by the operator (RESPONSE_CACHE_PRICE_RATE > 0), answered by a second gateway
 * on the shared stack: its usage event carries its request's signed token, not the key's hit grant
 * (which the billing consumers take only on hits that cost nothing), so it is billed, not dead-lettered.
 */
const RATE = 0.5;
const MODEL = 'sim/gpt-4o-mini-cache-probe';
const CACHE = { 'x-service-cache': 'true' };

let priced: StartedProcess | undefined;
let pricedUrl = '';
const generations = new pg.Client({ connectionString: stack.inferenceDatabaseUrl });

async function generationRow(id: string): Promise<{ cache_hit: boolean; cost: number } | undefined> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const { rows } = await generations.query<{ cache_hit: boolean; cost: number }>(
      'SELECT cache_hit, cost::float8 AS cost FROM generations WHERE id = $1',
      [id],
    );
    if (rows[0]) return rows[0];
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return undefined;
}

beforeAll(async () => {
  await generations.connect();
  const port = await freePort();
  pricedUrl = `http://127.0.0.1:${port}/v1`;
  priced = spawnProcess(
    {
      name: 'api-gateway-priced-cache',
      script: 'apps/api-gateway/dist/main.js',
      env: {
        NATS_URL: stack.natsUrl,
        NATS_NKEY_SEED: stack.natsSeeds['api-gateway'],
        BUS_PRINCIPAL_SIGNING_KEY: stack.principalKeys.signingKey,
        REDIS_URL,
        REDIS_KEY_PREFIX: stack.redisKeyPrefix,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        RESPONSE_CACHE_PRICE_RATE: String(RATE),
      },
    },
    stack.logDir,
  );
  await waitFor(() => httpOk(`http://127.0.0.1:${port}/health/ready`), 'the priced-cache gateway', 120_000);
}, 150_000);

afterAll(async () => {
  priced?.child.kill('SIGKILL');
  await generations.end();
});

describe('a priced response-cache hit answered by the gateway', () => {
  it('is billed at the cache price under its request’s own token, and recorded as a hit', async () => {
    const messages = [{ role: 'user' as const, content: `What does a priced cache hit cost? (${randomUUID()})` }];
    const ask = async (baseURL: string) => {
      const client = new OpenAI({ apiKey: stack.apiKey, baseURL, maxRetries: 0, timeout: 60_000 });
      const { data, response } = await client.chat.completions
        .create({ model: MODEL, messages, temperature: 0 }, { headers: CACHE })
        .withResponse();
      return { data: data as typeof data & { usage: { cost: number } }, status: response.headers.get('x-service-cache-status') };
    };
    const miss = await ask(stack.baseUrl);
    expect(miss.status).toBe('MISS');
    const hit = await ask(pricedUrl);
    expect(hit.status).toBe('HIT');
    expect(hit.data.usage.cost).toBeCloseTo(miss.data.usage.cost * RATE, 10);
    // The generations consumer verified the hit's proof and stored it (a refused event is dead-lettered).
    const row = await generationRow(hit.data.id);
    expect(row, 'the priced hit was not recorded: its usage event was refused').toBeDefined();
    expect(row!.cache_hit).toBe(true);
    expect(row!.cost).toBeCloseTo(miss.data.usage.cost * RATE, 10);
  });
});
