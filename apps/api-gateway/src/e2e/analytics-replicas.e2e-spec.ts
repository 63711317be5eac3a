import Anthropic from '@anthropic-ai/sdk';
import { OpenRouter } from '@openrouter/sdk';
import { IsolatedStackRun, type IsolatedStack } from '@gw/testing';
import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

/*
 * Activity and analytics with two replicas of every service and of the gateway (issue 31): chats
 * of every front door sent through both gateways at once, their usage counted by two inference
 * replicas' consumers (rows and rollups) and two management replicas (the key's usage): the
 * sums the SDK reads equal the answers' costs exactly, and management's count agrees.
 */

const run = new IsolatedStackRun('analyticsreplicas');
let stack: IsolatedStack;
let failed = false;

beforeAll(async () => {
  stack = await run.start(new AbortController().signal, { replicas: 2 });
}, 400_000);

afterEach(({ task }) => {
  if (task.result?.state === 'fail') failed = true;
});

afterAll(async () => {
  await run.teardown(failed);
  if (failed) console.error(`analytics replica stack logs kept in ${run.logDir}`);
});

const SCALE = 18;
const units = (cost: number) => {
  const [whole, fraction = ''] = cost.toFixed(SCALE).split('.');
  return BigInt(whole!) * 10n ** BigInt(SCALE) + BigInt(fraction.padEnd(SCALE, '0'));
};
const asNumber = (total: bigint) =>
  Number(`${total / 10n ** BigInt(SCALE)}.${(total % 10n ** BigInt(SCALE)).toString().padStart(SCALE, '0')}`);
type Priced = { cost: number };
const messages = [{ role: 'user' as const, content: 'Count me once' }];

/** One chat of the given kind through one gateway; its answered cost. */
async function chat(baseUrl: string, kind: number): Promise<number> {
  const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: baseUrl, maxRetries: 0 });
  switch (kind % 4) {
    case 0:
      return ((await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages })).usage as unknown as Priced).cost;
    case 1: {
      const stream = await openai.chat.completions.create({
        model: 'sim/claude-sonnet',
        messages,
        stream: true,
        stream_options: { include_usage: true },
      });
      let cost: number | undefined;
      for await (const chunk of stream) if (chunk.usage) cost = (chunk.usage as unknown as Priced).cost;
      return cost!;
    }
    case 2:
      return ((await openai.responses.create({ model: 'sim/gpt-5-mini', input: 'Hello!' })).usage as unknown as Priced).cost;
    default: {
      const anthropic = new Anthropic({ apiKey: stack.apiKey, baseURL: baseUrl.replace(/\/v1$/, ''), maxRetries: 0 });
      return ((await anthropic.messages.create({ model: 'sim/claude-sonnet', max_tokens: 64, messages })).usage as unknown as Priced).cost;
    }
  }
}

describe('activity and analytics with two replicas of every service', () => {
  it('sum every answer exactly once, as management counts them', async () => {
    const costs: number[] = [];
    // 32 chats, 4 at a time, alternating the two gateways and the four front doors.
    for (let wave = 0; wave < 8; wave++) {
      costs.push(...(await Promise.all([0, 1, 2, 3].map((slot) => chat(stack.baseUrls[(wave + slot) % 2]!, wave + slot)))));
    }
    const expected = asNumber(costs.reduce((total, cost) => total + units(cost), 0n));
    const keyHash = createHash('sha256').update(stack.apiKey).digest('hex');
    const query = async () => {
      const response = await fetch(`${stack.baseUrls[1]}/analytics/query`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.managementKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ metrics: ['request_count', 'usage'], filters: [{ field: 'api_key_id', operator: 'eq', value: keyHash }] }),
      });
      expect(response.status).toBe(200);
      return ((await response.json()) as { data: { data: Array<{ request_count: number; usage: number }> } }).data.data[0]!;
    };
    let totals = await query();
    for (const deadline = Date.now() + 30_000; totals.request_count < costs.length && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      totals = await query();
    }
    expect(totals).toEqual({ request_count: costs.length, usage: expected });

    // Activity through the SDK, from the other gateway, for every date the generations fell on.
    const sdk = new OpenRouter({ apiKey: stack.managementKey, serverURL: stack.baseUrls[0]! });
    const today = new Date();
    const dates = [today.toISOString().slice(0, 10), new Date(today.getTime() - 86_400_000).toISOString().slice(0, 10)];
    const items = [];
    for (const date of dates) items.push(...(await sdk.analytics.getUserActivity({ date, apiKeyHash: keyHash })).data);
    expect(items.reduce((total, item) => total + item.requests, 0)).toBe(costs.length);
    expect(asNumber(items.reduce((total, item) => total + units(item.usage), 0n))).toBe(expected);

    // Management's replicas counted the same usage on the key.
    const counted = async () => {
      const key = await fetch(`${stack.baseUrls[0]}/keys/${keyHash}`, { headers: { authorization: `Bearer ${stack.managementKey}` } });
      expect(key.status).toBe(200);
      return ((await key.json()) as { data: { usage: number } }).data.usage;
    };
    let usage = await counted();
    for (const deadline = Date.now() + 30_000; usage !== expected && Date.now() < deadline; usage = await counted()) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(usage).toBe(expected);
  });
});
