import { HEALTH_MESSAGES } from '@gw/contracts';
import { ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { busAuth, IsolatedStackRun, type IsolatedStack } from '@gw/testing';
import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { seedWorkspace, type SeededWorkspace } from './seed-workspace.js';

/*
 * Issue 30 items 4 and 5 through the public HTTP API, on a stack of its own with two inference
 * replicas: a workspace's own models on its own server (the provider simulator, which the stack's
 * BYOK_ALLOWED_ORIGINS admits) seen and called (chat, embeddings, batches) by that workspace only; endpoints drawn by weight;
 * an endpoint cooled down by one replica skipped by the other.
 */

const run = new IsolatedStackRun('catalogops');
let stack: IsolatedStack;
let failed = false;
let nats: ResilientNatsConnection;
let rpc: RpcClient;
let managementDb: pg.Client;
/** `GET /metrics` of each inference replica. */
let metricsUrls: string[];

const PRICES = { prompt: '0.000001', completion: '0.000002' };

async function http(path: string, init: { method?: string; key?: string; body?: unknown } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${init.key ?? stack.operatorKey}` };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: the assertion shows the text
  }
  return { status: response.status, body: body as Record<string, any> };
}

function client(apiKey: string): OpenAI {
  return new OpenAI({ apiKey, baseURL: stack.baseUrl, maxRetries: 0, timeout: 30_000 });
}

async function chat(model: string, apiKey = stack.apiKey): Promise<OpenAI.ChatCompletion & { provider?: string }> {
  return client(apiKey).chat.completions.create({ model, messages: [{ role: 'user', content: 'Say hi' }], max_tokens: 16 });
}

/** The sum of a metric's samples whose labels include `labels`, on one replica. */
async function metric(url: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(url)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const space = line.lastIndexOf(' ');
    const labelText = line.slice(name.length, space);
    if (Object.entries(labels).every(([key, value]) => labelText.includes(`${key}="${value}"`))) sum += Number(line.slice(space + 1));
  }
  return sum;
}

const onEachReplica = (name: string, labels: Record<string, string> = {}) =>
  Promise.all(metricsUrls.map((url) => metric(url, name, labels)));
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** Waits until both inference replicas serve catalog `version`. */
async function bothServe(version: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const seen = new Map<string, number>();
    for (let attempt = 0; attempt < 40 && seen.size < 2; attempt++) {
      const reply = await rpc.send(HEALTH_MESSAGES.inference, {});
      if (reply.catalog) seen.set(reply.instance, reply.catalog.version);
    }
    if (seen.size === 2 && [...seen.values()].every((served) => served >= version)) return;
    if (Date.now() > deadline) throw new Error(`the replicas serve ${JSON.stringify([...seen.values()])}, not ${version}`);
  }
}

/** A batch once it is no longer validating or in progress (polled for up to 60 s). */
async function settledBatch(id: string, key: string): Promise<Record<string, any>> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const read = await http(`/batches/${id}`, { key });
    expect(read.status).toBe(200);
    if (['completed', 'failed', 'expired', 'cancelled'].includes(read.body.status as string)) return read.body;
    if (Date.now() > deadline) throw new Error(`batch ${id} still ${read.body.status as string}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function operatorPut(path: string, body: unknown): Promise<number> {
  const answer = await http(path, { method: 'PUT', body });
  expect(answer.status).toBe(200);
  return answer.body.version as number;
}

const simulatorProvider = (name: string, baseUrl = `${stack.simulatorUrl}/openai/v1`) => ({
  name,
  format: 'openai',
  baseUrl,
  apiKey: 'sk-sim',
});
const operatorModel = (endpoints: Array<Record<string, unknown>>) => ({
  name: 'A balanced model',
  contextLength: 128000,
  supportedParameters: ['max_tokens', 'temperature'],
  endpoints: endpoints.map((endpoint) => ({ upstreamModel: 'gpt-4o-mini', pricing: PRICES, ...endpoint })),
});

beforeAll(async () => {
  stack = await run.start(new AbortController().signal, { env: { CATALOG_POLL_MS: '500', ENDPOINT_COOLDOWN_SECONDS: '120' } });
  metricsUrls = [stack.metricsUrls['inference']!, await run.startExtraReplica('inference')];
  nats = await ResilientNatsConnection.open({
    servers: stack.natsUrl,
    name: 'catalog-ops-e2e',
    auth: busAuth(stack.natsSeeds, 'api-gateway'),
  });
  rpc = new RpcClient(nats, 5_000);
  managementDb = new pg.Client({ connectionString: stack.managementDatabaseUrl });
  await managementDb.connect();
}, 400_000);

afterEach(({ task }) => {
  if (task.result?.state === 'fail') failed = true;
});

afterAll(async () => {
  await managementDb?.end();
  await nats?.close();
  await run.teardown(failed);
}, 60_000);

describe("a workspace's own models", () => {
  const MODEL = 'acme/llama-3';
  let byokId = '';
  let other: SeededWorkspace;
  const ownModel = (baseUrl: string, credentialId = byokId) => ({
    name: 'Our vLLM',
    contextLength: 32768,
    endpoints: [{ format: 'openai', baseUrl, upstreamModel: 'gpt-4o-mini', credentials: [{ byokId: credentialId }] }],
  });

  beforeAll(async () => {
    other = await seedWorkspace(managementDb, '10');
    const created = await http('/byok', { key: stack.managementKey, method: 'POST', body: { provider: 'acme-vllm', key: 'sk-sim-acme' } });
    expect(created.status).toBe(201);
    byokId = created.body.data.id as string;
  });

  it('a management key registers one on its own server; every replica lists it for that workspace and chats on it', async () => {
    const put = await http(`/workspace/models/${MODEL}`, {
      key: stack.managementKey,
      method: 'PUT',
      body: ownModel(`${stack.simulatorUrl}/openai/v1`),
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ object: 'workspace.model', id: MODEL, workspace_id: stack.workspaceId, name: 'Our vLLM' });
    expect((await http('/workspace/models', { key: stack.managementKey })).body.data.map((model: { id: string }) => model.id)).toEqual([
      MODEL,
    ]);
    // Many times: the queue group spreads them over both inference replicas.
    for (let index = 0; index < 8; index++) {
      const listed = await http('/models', { key: stack.apiKey });
      expect(listed.body.data.map((model: { id: string }) => model.id)).toContain(MODEL);
      const completion = await chat(MODEL);
      expect(completion.choices[0]!.message.content).toBeTruthy();
      expect(completion.provider).toBe('Workspace');
    }
    const audit = await http(`/audit-logs?resource_type=workspace_model&resource_id=${encodeURIComponent(MODEL)}`, {
      key: stack.managementKey,
    });
    expect(audit.body.data).toEqual([expect.objectContaining({ action: 'workspace_models.create', resource_id: MODEL })]);
    expect(JSON.stringify(audit.body)).not.toContain('sk-sim-acme');
  }, 90_000);

  it('another workspace gets 404 on it everywhere: the API, the model list, a chat', async () => {
    expect((await http(`/workspace/models/${MODEL}`, { key: other.managementKey })).status).toBe(404);
    expect((await http('/workspace/models', { key: other.managementKey })).body.data).toEqual([]);
    expect((await http(`/models/${MODEL}`, { key: other.apiKey })).status).toBe(404);
    const listed = await http('/models', { key: other.apiKey });
    expect(listed.body.data.map((model: { id: string }) => model.id)).not.toContain(MODEL);
    await expect(chat(MODEL, other.apiKey)).rejects.toMatchObject({ status: 404 });
    // Its credential is not another workspace's to bind.
    const stolen = await http('/workspace/models/other/llama', {
      key: other.managementKey,
      method: 'PUT',
      body: ownModel(`${stack.simulatorUrl}/openai/v1`),
    });
    expect(stolen.status).toBe(400);
    expect(stolen.body.error.metadata.param).toBe('endpoints.0.credentials.0.byokId');
    expect((await http('/workspace/models', { key: stack.apiKey })).status).toBe(401);
  });

  it('an embeddings model of its own serves POST /v1/embeddings and batches of embeddings and chats, on its server and for it only', async () => {
    const EMBED = 'acme/embed';
    const put = await http(`/workspace/models/${EMBED}`, {
      key: stack.managementKey,
      method: 'PUT',
      body: {
        name: 'Our embedder',
        contextLength: 8192,
        outputModalities: ['embeddings'],
        endpoints: [
          {
            format: 'openai',
            baseUrl: `${stack.simulatorUrl}/openai/v1`,
            upstreamModel: 'text-embedding-3-small',
            credentials: [{ byokId }],
            pricing: { prompt: '0.0000001', completion: '0' },
          },
        ],
      },
    });
    expect(put.status).toBe(200);
    expect(put.body.outputModalities).toEqual(['embeddings']);
    // Many times: both inference replicas route it.
    for (let index = 0; index < 6; index++) {
      const listed = await http('/models', { key: stack.apiKey });
      const view = listed.body.data.find((model: { id: string }) => model.id === EMBED);
      expect(view.architecture.output_modalities).toEqual(['embeddings']);
      const vectors = await http('/embeddings', { key: stack.apiKey, method: 'POST', body: { model: EMBED, input: ['one', 'two'] } });
      expect(vectors.status).toBe(200);
      expect(vectors.body).toMatchObject({ object: 'list', model: EMBED, provider: 'Workspace' });
      expect(vectors.body.data).toHaveLength(2);
      // Charged as BYOK at the price the workspace declared for its server.
      expect(vectors.body.usage.is_byok).toBe(true);
      expect(vectors.body.usage.cost_details.upstream_inference_cost).toBeCloseTo(vectors.body.usage.prompt_tokens * 0.0000001, 15);
    }
    const notChat = await chat(EMBED).catch((error: unknown) => error);
    expect(notChat).toMatchObject({ status: 400 });
    expect(String((notChat as Error).message)).toContain('is an embeddings model');
    expect((await http('/embeddings', { key: other.apiKey, method: 'POST', body: { model: EMBED, input: 'x' } })).status).toBe(404);

    // Batches: its servers have no batch API, so the lines run through the gateway, on its server.
    for (const [endpoint, model, body] of [
      ['/v1/embeddings', EMBED, (n: number) => ({ input: `Text ${n}` })],
      ['/v1/chat/completions', MODEL, (n: number) => ({ messages: [{ role: 'user', content: `Say ${n}` }], max_tokens: 16 })],
    ] as const) {
      const requests = [0, 1].map((n) => ({ custom_id: `line-${n}`, body: body(n) }));
      const created = await http('/batches', {
        key: stack.apiKey,
        method: 'POST',
        body: { endpoint, model, completion_window: '24h', requests },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      const batch = await settledBatch(created.body.id as string, stack.apiKey);
      expect(batch.status, JSON.stringify(batch.error)).toBe('completed');
      expect(batch.request_counts).toEqual({ total: 2, completed: 2, failed: 0 });
      for (const result of batch.results) {
        expect(result.response.status_code).toBe(200);
        expect(result.response.body.provider).toBe('Workspace');
        expect(result.response.body.usage.is_byok).toBe(true);
      }
      // Another workspace's batch on it finds no such model.
      const foreign = await http('/batches', {
        key: other.apiKey,
        method: 'POST',
        body: { endpoint, model, completion_window: '24h', requests },
      });
      expect(foreign.status, JSON.stringify(foreign.body)).toBe(202);
      const refused = await settledBatch(foreign.body.id as string, other.apiKey);
      expect(refused.status).toBe('failed');
      expect(String(refused.error?.message)).toContain(model);
    }
  }, 180_000);

  it('an endpoint inside the network is refused at call time, as a BYOK endpoint is', async () => {
    const put = await http('/workspace/models/acme/internal', {
      key: stack.managementKey,
      method: 'PUT',
      body: ownModel('http://127.0.0.1:9/v1'),
    });
    expect(put.status).toBe(200);
    const refused = await chat('acme/internal').catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400 });
    expect(String((refused as Error).message)).toContain('refused');
  });

  it('a deletion reaches every replica: the next chats are 404 wherever they land', async () => {
    expect((await http(`/workspace/models/${MODEL}`, { key: stack.managementKey, method: 'DELETE' })).body).toEqual({ deleted: true });
    for (let index = 0; index < 8; index++) await expect(chat(MODEL)).rejects.toMatchObject({ status: 404 });
    expect((await http(`/workspace/models/${MODEL}`, { key: stack.managementKey })).status).toBe(404);
  });
});

describe('load balancing', () => {
  it('draws equivalent endpoints by weight (3:1 over 200 chats), without a call to the cooldown store', async () => {
    await operatorPut('/admin/providers/lb-east', simulatorProvider('LB East'));
    await operatorPut('/admin/providers/lb-west', simulatorProvider('LB West'));
    await bothServe(
      await operatorPut(
        '/admin/models/lb/weighted',
        operatorModel([
          { provider: 'lb-east', weight: 3 },
          { provider: 'lb-west', weight: 1 },
        ]),
      ),
    );
    const writesBefore = sum(await onEachReplica('inference_endpoint_cooldown_store_calls_total', { op: 'write' }));
    const served: Record<string, number> = {};
    for (let batch = 0; batch < 20; batch++) {
      const answers = await Promise.all(Array.from({ length: 10 }, () => chat('lb/weighted')));
      for (const answer of answers) served[answer.provider!] = (served[answer.provider!] ?? 0) + 1;
    }
    // Binomial(200, 0.75): mean 150, sd 6.1. The band is 5 sd wide each side and excludes 1:1 (100) and all-east.
    expect(served['LB East']).toBeGreaterThanOrEqual(120);
    expect(served['LB East']).toBeLessThanOrEqual(180);
    expect(served['LB East']! + served['LB West']!).toBe(200);
    expect(sum(await onEachReplica('inference_endpoint_cooldown_store_calls_total', { op: 'write' }))).toBe(writesBefore);
  }, 180_000);

  it('an endpoint one replica cooled down after failures is skipped by the other, and the admin API shows it', async () => {
    await operatorPut('/admin/providers/lb-down', simulatorProvider('LB Down', 'http://127.0.0.1:9/v1'));
    await operatorPut('/admin/providers/lb-up', simulatorProvider('LB Up'));
    await bothServe(await operatorPut('/admin/models/lb/failover', operatorModel([{ provider: 'lb-down' }, { provider: 'lb-up' }])));
    const cooled = () => onEachReplica('inference_endpoint_cooldowns_total', { provider: 'lb-down', reason: 'failing' });
    let started = await cooled();
    for (let tries = 0; started.every((count) => count === 0) && tries < 40; tries++) {
      expect((await chat('lb/failover')).provider).toBe('LB Up');
      started = await cooled();
    }
    // One replica saw three failures in a row and started the cooldown; the other did not.
    expect(started.filter((count) => count > 0)).toHaveLength(1);
    const quiet = started.findIndex((count) => count === 0);
    // The admin API answers from either replica: both know the cooldown.
    for (let index = 0; index < 6; index++) {
      const endpoint = await http('/admin/endpoints/lb-down/gpt-4o-mini');
      expect(endpoint.status).toBe(200);
      expect(endpoint.body).toMatchObject({
        object: 'catalog.endpoint',
        cooling_reason: 'failing',
        healthy: false,
        models: [{ id: 'lb/failover' }],
      });
      expect(Date.parse(endpoint.body.cooling_until as string)).toBeGreaterThan(Date.now());
    }
    expect(await metric(metricsUrls[quiet]!, 'inference_endpoint_cooling', { provider: 'lb-down', reason: 'failing' })).toBe(1);
    const downFailures = await onEachReplica('inference_attempt_failures_total', { provider: 'lb-down' });
    const servedBefore = await onEachReplica('inference_generations_total', { provider: 'lb-up' });
    for (let index = 0; index < 16; index++) expect((await chat('lb/failover')).provider).toBe('LB Up');
    let servedAfter = await onEachReplica('inference_generations_total', { provider: 'lb-up' });
    for (let wait = 0; wait < 50 && sum(servedAfter) < sum(servedBefore) + 16; wait++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      servedAfter = await onEachReplica('inference_generations_total', { provider: 'lb-up' });
    }
    // The quiet replica answered some of them, and never called the cooled endpoint first.
    expect(servedAfter[quiet]!).toBeGreaterThan(servedBefore[quiet]!);
    expect(await onEachReplica('inference_attempt_failures_total', { provider: 'lb-down' })).toEqual(downFailures);
  }, 180_000);
});
