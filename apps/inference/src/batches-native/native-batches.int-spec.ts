import type { INestMicroservice } from '@nestjs/common';
import { validateEnv } from '@gw/config';
import {
  EVENTS,
  JETSTREAM,
  SUBJECTS,
  type ChatCompletionView,
  type EmbeddingsView,
  type MessageView,
  type NativeBatchCancelReply,
  type NativeBatchDeleteReply,
  type NativeBatchHandle,
  type NativeBatchStatusReply,
  type NativeBatchSubmitReply,
  type Principal,
  type ResolvedByokCredential,
} from '@gw/contracts';
import { bootstrapService, ResilientNatsConnection, RpcClient } from '@gw/messaging';
import { jetstreamManager } from '@nats-io/jetstream';
import { configureBatches, startSimulator, type RunningSimulator } from '@gw/provider-simulator';
import { principalFixture, PrivateNatsServer, testDatabaseUrl } from '@gw/testing';
import { Prisma } from '../generated/prisma/client.js';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AppModule } from '../app.module.js';
import { InferenceEnv } from '../env.js';
import { FakeManagement } from '../testing/fake-management.js';
import { nativeGenerationId } from './native-batches.service.js';

const LIVE = { prompt: '0.000002', completion: '0.000004' };
const BATCH = { prompt: '0.000001', completion: '0.000002' };

function catalogFor(simulatorUrl: string, hangingUrl: string): unknown {
  const openai = (id: string) => ({ id, name: id, format: 'openai', baseUrl: `${simulatorUrl}/openai/v1`, apiKey: 'sk-sim' });
  const model = (
    id: string,
    endpoints: Array<{ provider: string; upstreamModel: string; batch?: boolean }>,
    extra: Record<string, unknown> = {},
  ) => ({
    id,
    name: id,
    contextLength: 128000,
    supportedParameters: ['max_tokens', 'temperature'],
    ...extra,
    endpoints: endpoints.map((endpoint) => ({
      provider: endpoint.provider,
      upstreamModel: endpoint.upstreamModel,
      pricing: LIVE,
      ...(endpoint.batch === false ? {} : { batch: { pricing: BATCH } }),
    })),
  });
  return {
    providers: [
      openai('sim-oa'),
      openai('sim-ob'),
      { ...openai('hang'), baseUrl: `${hangingUrl}/v1` },
      { id: 'sim-an', name: 'Sim Anthropic', format: 'anthropic', baseUrl: `${simulatorUrl}/anthropic/v1`, apiKey: 'sk-ant-sim' },
    ],
    models: [
      model('t/gpt', [{ provider: 'sim-oa', upstreamModel: 'gpt-4o-mini' }]),
      model('t/claude', [{ provider: 'sim-an', upstreamModel: 'claude-sonnet-4-5' }]),
      model('t/embed', [{ provider: 'sim-oa', upstreamModel: 'text-embedding-3-small' }], { outputModalities: ['embeddings'] }),
      model('t/live-only', [{ provider: 'sim-oa', upstreamModel: 'gpt-4o-mini', batch: false }]),
      // A second a line: the cancel lands while lines are left however slow the machine (60 ms raced it at load 50).
      model('t/slow', [{ provider: 'sim-oa', upstreamModel: 'gpt-4o-mini;batch-line-delay=1000' }]),
      model('t/claude-slow', [{ provider: 'sim-an', upstreamModel: 'claude-sonnet-4-5;batch-line-delay=1000' }]),
      model('t/expiring', [{ provider: 'sim-an', upstreamModel: 'claude-sonnet-4-5;batch-expire=1' }]),
      model('t/refused', [{ provider: 'sim-oa', upstreamModel: 'gpt-4o-mini;batch-fail=1' }]),
      model('t/down', [{ provider: 'sim-oa', upstreamModel: 'gpt-4o-mini;batch-status=503' }]),
      model('t/hang', [{ provider: 'hang', upstreamModel: 'gpt-4o-mini' }]),
      model('t/fallback', [
        { provider: 'sim-oa', upstreamModel: 'gpt-4o-mini;batch-status=503' },
        { provider: 'sim-ob', upstreamModel: 'gpt-4o-mini' },
      ]),
    ],
  };
}

/**
 * The native-batch handlers over a real NATS server, against the provider simulator's batch
 * and file APIs (OpenAI and Anthropic wire formats), with a stand-in for management's BYOK answers.
 */
describe('inference.batches.native.* against the simulator', () => {
  const databaseUrl = testDatabaseUrl(inject('databasePrefix'), 'inference');
  let natsServer: PrivateNatsServer;
  let simulator: RunningSimulator;
  let service: INestMicroservice;
  let nats: ResilientNatsConnection;
  let rpc: RpcClient;
  let management: FakeManagement;
  /** A provider that accepts connections and never answers. */
  let hanging: Server;

  const principalOf = (overrides: Partial<Principal> = {}) =>
    principalFixture('d'.repeat(64), { workspaceId: randomUUID(), userId: randomUUID(), ...overrides });
  const chatLine = (customId: string, text: string, extra: Record<string, unknown> = {}) => ({
    custom_id: customId,
    body: { messages: [{ role: 'user', content: text }], ...extra },
  });

  const submit = (principal: Principal, request: Record<string, unknown>) =>
    rpc.send<NativeBatchSubmitReply>(SUBJECTS.inference.batchesNativeSubmit, {
      principal,
      batchId: `batch_${randomUUID()}`,
      endpoint: '/v1/chat/completions',
      ...request,
    });
  const status = (principal: Principal, handle: NativeBatchHandle) =>
    rpc.send<NativeBatchStatusReply>(SUBJECTS.inference.batchesNativeStatus, { principal, handle });
  const cancel = (principal: Principal, handle: NativeBatchHandle) =>
    rpc.send<NativeBatchCancelReply>(SUBJECTS.inference.batchesNativeCancel, { principal, handle });
  const remove = (principal: Principal, handle: NativeBatchHandle) =>
    rpc.send<NativeBatchDeleteReply>(SUBJECTS.inference.batchesNativeDelete, { principal, handle });

  async function submitted(principal: Principal, request: Record<string, unknown>): Promise<NativeBatchHandle> {
    const reply = await submit(principal, request);
    if (!reply.native) throw new Error(`expected a native batch, got: ${reply.reason}`);
    return reply.handle;
  }

  async function until(
    principal: Principal,
    handle: NativeBatchHandle,
    done: (reply: NativeBatchStatusReply) => boolean,
  ): Promise<NativeBatchStatusReply> {
    // Bounded in time, not in polls (300 polls were 6 s on an idle machine, less than a batch's run at load).
    for (const deadline = Date.now() + 60_000; Date.now() < deadline;) {
      const reply = await status(principal, handle);
      if (done(reply)) return reply;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('the batch did not get there');
  }
  const finished = (reply: NativeBatchStatusReply) => ['ended', 'failed', 'cancelled', 'expired'].includes(reply.state);

  /** What the batch price makes of a line's tokens, exactly. */
  const batchCost = (prompt: number, completion: number) =>
    new Prisma.Decimal(BATCH.prompt).mul(prompt).add(new Prisma.Decimal(BATCH.completion).mul(completion));

  beforeAll(async () => {
    configureBatches({ delayMs: 30 });
    natsServer = await PrivateNatsServer.start();
    simulator = await startSimulator();
    hanging = createServer(() => undefined);
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve));
    const catalogPath = join(mkdtempSync(join(tmpdir(), 'gw-catalog-')), 'models.json');
    writeFileSync(catalogPath, JSON.stringify(catalogFor(simulator.url, `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`)));
    const env = validateEnv(InferenceEnv, {
      DATABASE_URL: databaseUrl,
      NATS_URL: natsServer.url,
      LOG_LEVEL: 'silent',
      MODEL_CATALOG_PATHS: catalogPath,
      BYOK_FEE_RATE: '0.1',
      NATIVE_BATCH_CALL_TIMEOUT_MS: '2000',
    });
    service = await bootstrapService(AppModule.forRoot(env), { queue: 'inference', natsUrl: natsServer.url });
    nats = await ResilientNatsConnection.open({ servers: natsServer.url, name: 'native-batches-spec' });
    rpc = new RpcClient(nats, 10_000);
    management = new FakeManagement(nats.connection);
    await nats.connection.flush();
  });

  afterAll(async () => {
    management?.close();
    rpc?.close();
    await nats?.close();
    await service?.close();
    await simulator?.close();
    hanging?.closeAllConnections();
    await new Promise((resolve) => hanging?.close(resolve));
    await natsServer?.stop();
  });

  it('chat on an OpenAI-format endpoint: JSONL uploaded in the live body form, polled to the end, translated and priced at the batch price', async () => {
    const principal = principalOf();
    const handle = await submitted(principal, {
      model: 't/gpt',
      lines: [
        chatLine('one', 'Tell me a joke', { max_tokens: 50, user: 'end-user-7', provider: { sort: 'price' } }),
        chatLine('two', 'Hello'),
        { custom_id: 'bad', body: { messages: [] } },
      ],
    });
    expect(handle).toMatchObject({
      v: 1,
      api: 'openai',
      provider: 'sim-oa',
      endpointId: 'sim-oa/gpt-4o-mini',
      model: 't/gpt',
      upstreamModel: 'gpt-4o-mini',
      isByok: false,
      workspaceId: principal.workspaceId,
    });
    expect(handle.upstreamBatchId).toMatch(/^batch_/);

    // The input file holds exactly what the live path would send: upstream model, the max tokens
    // under the name the endpoint takes, the end user hashed, no gateway fields.
    const input = await (
      await fetch(`${simulator.url}/v1/files/${handle.inputFileId}/content`, { headers: { authorization: 'Bearer sk-sim' } })
    ).text();
    const first = JSON.parse(input.split('\n')[0]!) as { custom_id: string; method: string; url: string; body: Record<string, unknown> };
    expect(first).toMatchObject({ custom_id: 'one', method: 'POST', url: '/v1/chat/completions' });
    expect(first.body).toMatchObject({ model: 'gpt-4o-mini', max_tokens: 50 });
    expect(first.body.user).toMatch(/^[0-9a-f]{32}$/);
    expect(first.body).not.toHaveProperty('provider');

    // Running or already over: the simulator's batch may end before this read on a loaded machine.
    expect(['in_progress', 'ended']).toContain((await status(principal, handle)).state);
    const done = await until(principal, handle, finished);
    expect(done.state).toBe('ended');
    expect(done.counts).toEqual({ total: 3, completed: 2, failed: 1 });
    const byId = new Map(done.results!.map((result) => [result.custom_id, result]));
    const one = byId.get('one')!;
    const body = one.body as unknown as ChatCompletionView;
    expect(one).toMatchObject({
      ok: true,
      status_code: 200,
      error: null,
      generation_id: nativeGenerationId(handle.batchId, 'one'),
      provider: 'sim-oa',
      upstream_model: 'gpt-4o-mini',
    });
    expect(body).toMatchObject({ object: 'chat.completion', id: one.generation_id, model: 't/gpt', provider: 'sim-oa' });
    expect(body.choices[0]!.message.content).toMatch(/^Simulated reply to: Tell me a joke\./);
    const cost = batchCost(body.usage.prompt_tokens, body.usage.completion_tokens);
    expect(one.usage).toMatchObject({
      prompt_tokens: body.usage.prompt_tokens,
      completion_tokens: body.usage.completion_tokens,
      is_byok: false,
      cost: cost.toFixed(),
      upstream_cost: cost.toFixed(),
    });
    expect(body.usage.cost).toBe(cost.toNumber()); // half the live price
    expect(body.usage.is_byok).toBe(false);

    const bad = byId.get('bad')!;
    expect(bad).toMatchObject({
      ok: false,
      status_code: 400,
      body: null,
      error: { type: 'invalid_request', error_type: 'invalid_request', param: null },
      usage: { prompt_tokens: 0, cost: '0' },
    });
    expect(bad.error!.message).toMatch(/empty array/);

    // Polling again answers the same results with the same generation ids (the batch service may lose a reply).
    const again = await status(principal, handle);
    expect(again.results!.map((result) => result.generation_id).sort()).toEqual(done.results!.map((result) => result.generation_id).sort());
  });

  it('messages and chat on an Anthropic-format endpoint, and embeddings, each in its live shape', async () => {
    const principal = principalOf();
    const messagesHandle = await submitted(principal, {
      model: 't/claude',
      endpoint: '/v1/messages',
      lines: [{ custom_id: 'm1', body: { max_tokens: 200, messages: [{ role: 'user', content: 'Tell me a joke' }] } }],
    });
    expect(messagesHandle).toMatchObject({ api: 'anthropic', provider: 'sim-an', endpoint: '/v1/messages' });
    expect(messagesHandle.upstreamBatchId).toMatch(/^msgbatch_/);
    const messages = await until(principal, messagesHandle, finished);
    expect(messages.state).toBe('ended');
    const message = messages.results![0]!.body as unknown as MessageView;
    expect(message).toMatchObject({
      id: messages.results![0]!.generation_id,
      type: 'message',
      role: 'assistant',
      model: 't/claude',
      stop_reason: 'end_turn',
      container: null,
    });
    expect(message.usage.cost).toBe(batchCost(message.usage.input_tokens, message.usage.output_tokens).toNumber());

    const chatHandle = await submitted(principal, {
      model: 't/claude',
      lines: [chatLine('c1', 'Hello there', { reasoning: { exclude: true } })],
    });
    expect(chatHandle.lineOptions).toEqual({ c1: { excludeReasoning: true } });
    const chat = await until(principal, chatHandle, finished);
    expect(chat.results![0]!.body as unknown as ChatCompletionView).toMatchObject({
      object: 'chat.completion',
      model: 't/claude',
      choices: [{ finish_reason: 'stop' }],
    });

    // Messages on an OpenAI-format endpoint: sent as chat completions, answered as an Anthropic message.
    const translatedHandle = await submitted(principal, {
      model: 't/gpt',
      endpoint: '/v1/messages',
      lines: [{ custom_id: 'm2', body: { max_tokens: 100, messages: [{ role: 'user', content: 'Tell me a joke' }] } }],
    });
    expect(translatedHandle).toMatchObject({ api: 'openai', endpoint: '/v1/messages' });
    const translated = await until(principal, translatedHandle, finished);
    const translatedMessage = translated.results![0]!.body as unknown as MessageView;
    expect(translatedMessage).toMatchObject({
      type: 'message',
      model: 't/gpt',
      stop_reason: 'end_turn',
      content: [{ type: 'text', text: expect.stringMatching(/^Simulated reply to: Tell me a joke\./) }],
    });
    expect(translatedMessage.usage.cost).toBe(
      batchCost(translatedMessage.usage.input_tokens, translatedMessage.usage.output_tokens).toNumber(),
    );
    // A messages line with an Anthropic-only field cannot go to an OpenAI-format batch: the gateway runs it.
    expect(
      await submit(principal, {
        model: 't/gpt',
        endpoint: '/v1/messages',
        lines: [{ custom_id: 'm3', body: { max_tokens: 100, container: 'c', messages: [{ role: 'user', content: 'x' }] } }],
      }),
    ).toMatchObject({ native: false, reason: expect.stringMatching(/container/) });

    const embedHandle = await submitted(principal, {
      model: 't/embed',
      endpoint: '/v1/embeddings',
      lines: [{ custom_id: 'e1', body: { input: 'hello world' } }],
    });
    const embeddings = await until(principal, embedHandle, finished);
    const list = embeddings.results![0]!.body as unknown as EmbeddingsView;
    expect(list).toMatchObject({ object: 'list', model: 't/embed', data: [{ object: 'embedding', index: 0 }] });
    expect(embeddings.results![0]!.usage.cost).toBe(batchCost(list.usage.prompt_tokens, 0).toFixed());
  });

  it('answers native: false where no endpoint (or line) can go to a provider batch API', async () => {
    const principal = principalOf();
    const reasons = await Promise.all([
      submit(principal, { model: 't/live-only', lines: [chatLine('a', 'x')] }),
      submit(principal, { model: 't/gpt', endpoint: '/v1/responses', lines: [{ custom_id: 'a', body: { input: 'x' } }] }),
      submit(principal, { model: 't/gpt', lines: [chatLine('a', 'x', { models: ['t/claude'] })] }),
      submit(principal, { model: 't/gpt', lines: [chatLine('has space', 'x')] }),
      submit(principal, { model: 't/gpt', lines: [chatLine('a', 'x', { tools: [{ type: 'service:web_search' }] })] }),
      // No endpoint left by provider.only: the gateway-run lines then answer what a live request would (404).
      submit(principal, { model: 't/gpt', provider: { only: ['sim-an'] }, lines: [chatLine('a', 'x')] }),
    ]);
    for (const reply of reasons) expect(reply).toMatchObject({ native: false, reason: expect.any(String) });
    expect((reasons[3] as { reason: string }).reason).toMatch(/custom_id/);
    expect((reasons[4] as { reason: string }).reason).toMatch(/server tool/);
  });

  it('refuses a spend-blocked principal, an unknown model, and a handle of another workspace', async () => {
    await expect(
      submit(principalOf({ spendBlocked: 'insufficient_credits' }), { model: 't/gpt', lines: [chatLine('a', 'x')] }),
    ).rejects.toMatchObject({ status: 402, errorType: 'payment_required' });
    await expect(submit(principalOf(), { model: 't/nope', lines: [chatLine('a', 'x')] })).rejects.toMatchObject({ status: 404 });
    const principal = principalOf();
    const handle = await submitted(principal, { model: 't/gpt', lines: [chatLine('a', 'x')] });
    await expect(status(principalOf(), handle)).rejects.toMatchObject({ status: 404 });
    await expect(status(principal, { ...handle, v: 2 } as unknown as NativeBatchHandle)).rejects.toMatchObject({ status: 400 });
    // Provider ids go into URL paths: a handle cannot walk to another path with the gateway's key.
    await expect(remove(principal, { ...handle, upstreamBatchId: '../files' })).rejects.toMatchObject({ status: 400 });
    await expect(remove(principal, { ...handle, inputFileId: 'file-x/../../batches' })).rejects.toMatchObject({ status: 400 });
  });

  it('cancels an OpenAI batch: cancelling, then cancelled with the lines that ran and batch_cancelled for the rest', async () => {
    const principal = principalOf();
    const handle = await submitted(principal, {
      model: 't/slow',
      lines: Array.from({ length: 24 }, (_, i) => chatLine(`l${i}`, `line ${i}`)),
    });
    await until(principal, handle, (reply) => reply.counts.completed > 0);
    expect((await cancel(principal, handle)).state).toBe('cancelling');
    const done = await until(principal, handle, finished);
    expect(done.state).toBe('cancelled');
    const ran = done.results!.filter((result) => result.ok);
    const notRun = done.results!.filter((result) => !result.ok);
    expect(ran.length).toBeGreaterThan(0);
    expect(notRun.length).toBeGreaterThan(0);
    expect(ran.length + notRun.length).toBe(24);
    expect(notRun[0]).toMatchObject({ status_code: null, body: null, error: { type: 'batch_cancelled' }, usage: { cost: '0' } });
    expect(done.counts).toEqual({ total: 24, completed: ran.length, failed: notRun.length });
    // Cancelling what has ended reports where it is.
    expect((await cancel(principal, handle)).state).toBe('cancelled');
  });

  it('cancels an Anthropic batch, and reports an expired one with batch_expired lines', async () => {
    const principal = principalOf();
    const handle = await submitted(principal, {
      model: 't/claude-slow',
      endpoint: '/v1/messages',
      lines: Array.from({ length: 24 }, (_, i) => ({
        custom_id: `l${i}`,
        body: { max_tokens: 100, messages: [{ role: 'user', content: `line ${i}` }] },
      })),
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await cancel(principal, handle)).state).toBe('cancelling');
    const cancelled = await until(principal, handle, finished);
    expect(cancelled.state).toBe('cancelled');
    expect(cancelled.results!.some((result) => result.error?.type === 'batch_cancelled')).toBe(true);

    const expiring = await submitted(principal, {
      model: 't/expiring',
      endpoint: '/v1/messages',
      lines: ['a', 'b', 'c'].map((id) => ({ custom_id: id, body: { max_tokens: 100, messages: [{ role: 'user', content: id }] } })),
    });
    const expired = await until(principal, expiring, finished);
    expect(expired.state).toBe('expired');
    expect(expired.counts).toEqual({ total: 3, completed: 1, failed: 2 });
    expect(expired.results!.filter((result) => result.error?.type === 'batch_expired')).toHaveLength(2);
  });

  it('deletes: the OpenAI files (input, output) and the Anthropic batch; then nothing is left', async () => {
    const principal = principalOf();
    const handle = await submitted(principal, { model: 't/gpt', lines: [chatLine('a', 'x')] });
    await until(principal, handle, finished);
    expect(await remove(principal, handle)).toEqual({ status: 'deleted', provider: 'sim-oa' });
    expect((await fetch(`${simulator.url}/v1/files/${handle.inputFileId}`, { headers: { authorization: 'Bearer sk-sim' } })).status).toBe(
      404,
    );
    expect(await remove(principal, handle)).toEqual({ status: 'already_deleted', provider: 'sim-oa' });

    const anthropic = await submitted(principal, {
      model: 't/claude',
      endpoint: '/v1/messages',
      lines: [{ custom_id: 'a', body: { max_tokens: 100, messages: [{ role: 'user', content: 'x' }] } }],
    });
    await until(principal, anthropic, finished);
    expect(await remove(principal, anthropic)).toEqual({ status: 'deleted', provider: 'sim-an' });
    expect(await remove(principal, anthropic)).toEqual({ status: 'already_deleted', provider: 'sim-an' });
    await expect(status(principal, anthropic)).rejects.toMatchObject({ status: 502, errorType: 'provider_unavailable' });
  });

  it('turns upstream failures into 502: a create refused, a batch the provider failed; falls back to the next endpoint on a retryable one', async () => {
    const principal = principalOf();
    await expect(submit(principal, { model: 't/down', lines: [chatLine('a', 'x')] })).rejects.toMatchObject({
      status: 502,
      errorType: 'provider_unavailable',
      metadata: { provider: 'sim-oa', operation: 'submit', upstream_status: 503 },
    });
    const refused = await submitted(principal, { model: 't/refused', lines: [chatLine('a', 'x')] });
    const failed = await until(principal, refused, finished);
    expect(failed).toMatchObject({ state: 'failed', error: { message: expect.stringMatching(/refused/) } });
    expect(failed.results).toBeUndefined();
    // A provider that never answers: the whole-call deadline (NATIVE_BATCH_CALL_TIMEOUT_MS, 2 s here) ends the submit.
    const started = Date.now();
    await expect(submit(principal, { model: 't/hang', lines: [chatLine('a', 'x')] })).rejects.toMatchObject({
      status: 502,
      errorType: 'provider_unavailable',
      metadata: { provider: 'hang', operation: 'submit' },
    });
    // The configured 2 s deadline, not the 60 s default: the bound tells them apart, the delay is logged.
    console.log(`hung submit ended after ${Date.now() - started} ms`);
    expect(Date.now() - started).toBeLessThan(30_000);
    const fallback = await submitted(principal, { model: 't/fallback', lines: [chatLine('a', 'x')] });
    expect(fallback).toMatchObject({ provider: 'sim-ob', endpointId: 'sim-ob/gpt-4o-mini' });
    await expect(
      submit(principal, { model: 't/fallback', provider: { allow_fallbacks: false }, lines: [chatLine('a', 'x')] }),
    ).rejects.toMatchObject({ status: 502 });
  });

  it('runs on the workspace BYOK key: is_byok, only the fee charged, the key never in the handle; a deleted key is a 502', async () => {
    const principal = principalOf();
    const credential: ResolvedByokCredential = {
      id: randomUUID(),
      provider: 'sim-oa',
      apiKey: 'sk-sim-mine',
      isFallback: false,
      isByokOnly: false,
      isRequired: false,
      sortOrder: 0,
      allowedApiKeyHashes: null,
      allowedModels: null,
      allowedUserIds: null,
    };
    management.credentials.set(principal.workspaceId, [credential]);
    const handle = await submitted(principal, { model: 't/gpt', lines: [chatLine('a', 'Tell me a joke')] });
    expect(handle).toMatchObject({ isByok: true, byokCredentialId: credential.id });
    expect(JSON.stringify(handle)).not.toContain('sk-sim-mine');
    const done = await until(principal, handle, finished);
    const usage = done.results![0]!.usage;
    const upstream = batchCost(usage.prompt_tokens, usage.completion_tokens);
    expect(usage).toMatchObject({ is_byok: true, upstream_cost: upstream.toFixed(), cost: upstream.mul('0.1').toFixed() });
    management.credentials.set(principal.workspaceId, []);
    // Management's answer is cached for up to 30 s; a byok.changed event drops it at once.
    nats.connection.publish(EVENTS.byokChanged, JSON.stringify({ workspaceId: principal.workspaceId }));
    await nats.connection.flush();
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(status(principal, handle)).rejects.toMatchObject({ status: 502, errorType: 'provider_unavailable' });
  });

  it('charged nothing and published no usage event for any native line (the batch service charges once)', async () => {
    // This private nats-server saw only this file's native batches.
    const info = await (await jetstreamManager(nats.connection)).streams.info(JETSTREAM.usageStream).catch(() => null);
    expect(info).not.toBeNull();
    expect(info!.state.messages).toBe(0);
  });
});
