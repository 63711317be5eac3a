import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../index.ts';
import { configureBatches } from './batch-jobs.ts';

let sim: RunningSimulator;
let openai: OpenAI;
let anthropic: Anthropic;
beforeAll(async () => {
  configureBatches({ delayMs: 20 });
  sim = await startSimulator();
  openai = new OpenAI({ apiKey: 'sk-sim', baseURL: `${sim.url}/openai/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: 'sk-ant-sim', baseURL: `${sim.url}/anthropic`, maxRetries: 0 });
});
afterAll(() => sim.close());

const chatLine = (customId: string, text: string, model = 'gpt-4o-mini') =>
  JSON.stringify({
    custom_id: customId,
    method: 'POST',
    url: '/v1/chat/completions',
    body: { model, messages: [{ role: 'user', content: text }] },
  });

async function upload(lines: string[]): Promise<OpenAI.FileObject> {
  return openai.files.create({ file: await toFile(Buffer.from(`${lines.join('\n')}\n`), 'batch.jsonl'), purpose: 'batch' });
}

async function settle(
  id: string,
  done: (status: string) => boolean = (status) => ['completed', 'failed', 'expired', 'cancelled'].includes(status),
): Promise<OpenAI.Batch> {
  for (let i = 0; i < 200; i++) {
    const batch = await openai.batches.retrieve(id);
    if (done(batch.status)) return batch;
    await new Promise((resolve) => setTimeout(resolve, 15));
  }
  throw new Error(`batch ${id} did not settle`);
}

async function errorOf(response: Response): Promise<{ message: string; param: string | null; code: string | null }> {
  return ((await response.json()) as { error: { message: string; param: string | null; code: string | null } }).error;
}

async function jsonl(fileId: string): Promise<Array<Record<string, any>>> {
  const text = await (await openai.files.content(fileId)).text();
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

describe('OpenAI Files API (real openai client)', () => {
  it('uploads a batch file, retrieves it, reads its content and deletes it', async () => {
    const file = await upload([chatLine('a', 'Hello there')]);
    expect(file).toMatchObject({ object: 'file', purpose: 'batch', filename: 'batch.jsonl', status: 'processed' });
    expect(file.id).toMatch(/^file-/);
    expect(file.expires_at).toBe(file.created_at + 30 * 24 * 3600);
    expect((await openai.files.retrieve(file.id)).bytes).toBe(file.bytes);
    expect(await (await openai.files.content(file.id)).text()).toBe(`${chatLine('a', 'Hello there')}\n`);
    expect(await openai.files.delete(file.id)).toEqual({ id: file.id, object: 'file', deleted: true });
    await expect(openai.files.retrieve(file.id)).rejects.toMatchObject({ status: 404 });
  });

  it('refuses an upload without a purpose, with a bad purpose, or a batch file that is not .jsonl', async () => {
    const form = new FormData();
    form.set('file', new Blob(['{}']), 'x.jsonl');
    const missing = await fetch(`${sim.url}/v1/files`, { method: 'POST', headers: { authorization: 'Bearer sk-sim' }, body: form });
    expect(missing.status).toBe(400);
    expect((await errorOf(missing)).param).toBe('purpose');
    await expect(
      openai.files.create({ file: await toFile(Buffer.from('{}'), 'x.jsonl'), purpose: 'nope' as 'batch' }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(openai.files.create({ file: await toFile(Buffer.from('{}'), 'x.txt'), purpose: 'batch' })).rejects.toMatchObject({
      status: 400,
    });
  });
});

describe('OpenAI Batch API (real openai client)', () => {
  it('validates, runs every line with the deterministic completion, and writes output and error files', async () => {
    const file = await upload([
      chatLine('one', 'Tell me a joke'),
      chatLine('two', 'Hello'),
      chatLine('bad', 'x', 'gpt-4o-mini;status=400'),
    ]);
    const created = await openai.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { k: 'v' },
    });
    expect(created).toMatchObject({
      object: 'batch',
      status: 'validating',
      endpoint: '/v1/chat/completions',
      input_file_id: file.id,
      completion_window: '24h',
      metadata: { k: 'v' },
    });
    const failed = await settle(created.id);
    // The third line's model differs from the first's: OpenAI refuses the whole batch.
    expect(failed.status).toBe('failed');
    expect(failed.errors?.data?.[0]).toMatchObject({ code: 'model_mismatch', line: 3, param: 'body.model' });

    const good = await upload([chatLine('one', 'Tell me a joke'), chatLine('two', 'Hello')]);
    const batch = await settle(
      (await openai.batches.create({ input_file_id: good.id, endpoint: '/v1/chat/completions', completion_window: '24h' })).id,
    );
    expect(batch.status).toBe('completed');
    expect(batch.request_counts).toEqual({ total: 2, completed: 2, failed: 0 });
    expect(batch.error_file_id).toBeNull();
    expect(batch.in_progress_at).toBeGreaterThan(0);
    const rows = await jsonl(batch.output_file_id!);
    expect(rows.map((row) => row.custom_id)).toEqual(['one', 'two']);
    expect(rows[0]).toMatchObject({
      error: null,
      response: { status_code: 200, body: { object: 'chat.completion', usage: { prompt_tokens: 10, completion_tokens: 24 } } },
    });
    expect(rows[0]!.id).toMatch(/^batch_req_/);
    expect(rows[0]!.response.body.choices[0].message.content).toMatch(/^Simulated reply to: Tell me a joke\./);
  });

  it('puts a line the route refused in the error file, with its status and OpenAI error body', async () => {
    const model = 'gpt-4o-mini;batch-delay=0';
    const file = await upload([
      chatLine('ok', 'Hi', model),
      JSON.stringify({ custom_id: 'bad', method: 'POST', url: '/v1/chat/completions', body: { model, messages: [], top_k: 3 } }),
    ]);
    const batch = await settle(
      (await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })).id,
    );
    expect(batch.status).toBe('completed');
    expect(batch.request_counts).toEqual({ total: 2, completed: 1, failed: 1 });
    const [error] = await jsonl(batch.error_file_id!);
    expect(error).toMatchObject({
      custom_id: 'bad',
      error: null,
      response: { status_code: 400, body: { error: { type: 'invalid_request_error' } } },
    });
  });

  it('runs embeddings batches', async () => {
    const line = JSON.stringify({
      custom_id: 'e1',
      method: 'POST',
      url: '/v1/embeddings',
      body: { model: 'text-embedding-3-small', input: 'hello' },
    });
    const batch = await settle(
      (await openai.batches.create({ input_file_id: (await upload([line])).id, endpoint: '/v1/embeddings', completion_window: '24h' })).id,
    );
    const [row] = await jsonl(batch.output_file_id!);
    expect(row).toMatchObject({
      custom_id: 'e1',
      response: { status_code: 200, body: { object: 'list', data: [{ object: 'embedding' }] } },
    });
  });

  it('cancels: cancelling, then cancelled with the lines that ran in the output and the rest as batch_cancelled', async () => {
    const model = 'gpt-4o-mini;batch-delay=0;batch-line-delay=40';
    const lines = Array.from({ length: 40 }, (_, i) => chatLine(`c${i}`, `line ${i}`, model));
    const created = await openai.batches.create({
      input_file_id: (await upload(lines)).id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    // OpenAI's counts move while the batch runs: cancel once some lines are done.
    for (let i = 0; i < 200 && ((await openai.batches.retrieve(created.id)).request_counts?.completed ?? 0) === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 5));
    const cancelling = await openai.batches.cancel(created.id);
    expect(cancelling.status).toBe('cancelling');
    expect(cancelling.cancelling_at).toBeGreaterThan(0);
    const batch = await settle(created.id);
    expect(batch.status).toBe('cancelled');
    expect(batch.request_counts!.completed).toBeGreaterThan(0);
    expect(batch.request_counts!.completed).toBeLessThan(40);
    expect(batch.request_counts!.completed + batch.request_counts!.failed).toBe(40);
    const errors = await jsonl(batch.error_file_id!);
    expect(errors[0]).toMatchObject({ response: null, error: { code: 'batch_cancelled' } });
    await expect(openai.batches.cancel(created.id)).rejects.toMatchObject({ status: 409 });
  });

  it('expires: the lines past batch-expire come back as batch_expired', async () => {
    const model = 'gpt-4o-mini;batch-delay=0;batch-expire=2';
    const lines = ['a', 'b', 'c', 'd'].map((id) => chatLine(id, id, model));
    const batch = await settle(
      (await openai.batches.create({ input_file_id: (await upload(lines)).id, endpoint: '/v1/chat/completions', completion_window: '24h' }))
        .id,
    );
    expect(batch.status).toBe('expired');
    expect(batch.expired_at).toBeGreaterThan(0);
    expect(batch.request_counts).toEqual({ total: 4, completed: 2, failed: 2 });
    expect((await jsonl(batch.error_file_id!)).map((row) => row.error.code)).toEqual(['batch_expired', 'batch_expired']);
  });

  it('injects failures: batch-fail ends the batch failed, batch-status fails the create call', async () => {
    const failing = await upload([chatLine('a', 'x', 'gpt-4o-mini;batch-fail=1;batch-delay=0')]);
    const failed = await settle(
      (await openai.batches.create({ input_file_id: failing.id, endpoint: '/v1/chat/completions', completion_window: '24h' })).id,
    );
    expect(failed.status).toBe('failed');
    expect(failed.failed_at).toBeGreaterThan(0);
    const refused = await upload([chatLine('a', 'x', 'gpt-4o-mini;batch-status=503')]);
    await expect(
      openai.batches.create({ input_file_id: refused.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    ).rejects.toMatchObject({ status: 503 });
  });

  it('is strict: unknown parameters, a bad window or endpoint, a missing file, a bad key', async () => {
    const file = await upload([chatLine('a', 'x')]);
    const raw = (body: unknown, key = 'sk-sim') =>
      fetch(`${sim.url}/v1/batches`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect(
      (await errorOf(await raw({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h', model: 'x' }))).code,
    ).toBe('unknown_parameter');
    expect((await errorOf(await raw({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '1h' }))).param).toBe(
      'completion_window',
    );
    expect((await errorOf(await raw({ input_file_id: file.id, endpoint: '/v1/images/generations', completion_window: '24h' }))).param).toBe(
      'endpoint',
    );
    expect((await raw({ input_file_id: 'file-nope', endpoint: '/v1/chat/completions', completion_window: '24h' })).status).toBe(404);
    expect(
      (await raw({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }, 'sk-sim-invalid')).status,
    ).toBe(401);
    await expect(openai.batches.retrieve('batch_nope')).rejects.toMatchObject({ status: 404 });
  });

  it('lists batches newest first, paged with after', async () => {
    const page = await openai.batches.list({ limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.has_more).toBe(true);
    const next = await openai.batches.list({ limit: 2, after: page.data[1]!.id });
    expect(next.data[0]!.id).not.toBe(page.data[0]!.id);
  });
});

describe('Anthropic Message Batches (real @anthropic-ai/sdk client)', () => {
  const request = (customId: string, text: string, model = 'claude-sonnet-4-5') => ({
    custom_id: customId,
    params: { model, max_tokens: 256, messages: [{ role: 'user' as const, content: text }] },
  });

  async function ended(id: string): Promise<Anthropic.Messages.MessageBatch> {
    for (let i = 0; i < 200; i++) {
      const batch = await anthropic.messages.batches.retrieve(id);
      if (batch.processing_status === 'ended') return batch;
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    throw new Error(`message batch ${id} did not end`);
  }

  async function results(id: string): Promise<Anthropic.Messages.MessageBatchIndividualResponse[]> {
    const out: Anthropic.Messages.MessageBatchIndividualResponse[] = [];
    for await (const row of await anthropic.messages.batches.results(id)) out.push(row);
    return out;
  }

  it('creates, runs, reports counts once ended, streams results, and deletes', async () => {
    const created = await anthropic.messages.batches.create({
      requests: [request('one', 'Tell me a joke'), request('bad', 'x', 'claude-sonnet-4-5;status=400')],
    });
    expect(created).toMatchObject({
      type: 'message_batch',
      processing_status: 'in_progress',
      results_url: null,
      ended_at: null,
      request_counts: { processing: 2, succeeded: 0 },
    });
    expect(created.id).toMatch(/^msgbatch_/);
    await expect(anthropic.messages.batches.delete(created.id)).rejects.toMatchObject({ status: 400 });
    const batch = await ended(created.id);
    expect(batch.request_counts).toEqual({ processing: 0, succeeded: 1, errored: 1, canceled: 0, expired: 0 });
    expect(batch.results_url).toBe(`${sim.url}/anthropic/v1/messages/batches/${created.id}/results`);
    const rows = await results(created.id);
    expect(rows[0]).toMatchObject({
      custom_id: 'one',
      result: { type: 'succeeded', message: { type: 'message', role: 'assistant', usage: { input_tokens: expect.any(Number) } } },
    });
    expect(rows[1]).toMatchObject({
      custom_id: 'bad',
      result: { type: 'errored', error: { type: 'error', error: { type: 'invalid_request_error' } } },
    });
    expect(await anthropic.messages.batches.delete(created.id)).toEqual({ id: created.id, type: 'message_batch_deleted' });
    await expect(anthropic.messages.batches.retrieve(created.id)).rejects.toMatchObject({ status: 404 });
  });

  it('cancels: canceling, then ended with the lines not run as canceled', async () => {
    const model = 'claude-sonnet-4-5;batch-delay=0;batch-line-delay=80';
    const created = await anthropic.messages.batches.create({
      requests: Array.from({ length: 20 }, (_, i) => request(`c${i}`, `line ${i}`, model)),
    });
    await new Promise((resolve) => setTimeout(resolve, 120));
    const canceling = await anthropic.messages.batches.cancel(created.id);
    expect(canceling.processing_status).toBe('canceling');
    expect(canceling.cancel_initiated_at).not.toBeNull();
    const batch = await ended(created.id);
    expect(batch.request_counts.canceled).toBeGreaterThan(0);
    expect(batch.request_counts.succeeded + batch.request_counts.canceled).toBe(20);
    expect((await results(created.id)).filter((row) => row.result.type === 'canceled')).toHaveLength(batch.request_counts.canceled);
  });

  it('expires lines past batch-expire, and is strict about custom_id and unknown fields', async () => {
    const model = 'claude-sonnet-4-5;batch-delay=0;batch-expire=1';
    const batch = await ended(
      (await anthropic.messages.batches.create({ requests: [request('a', 'a', model), request('b', 'b', model)] })).id,
    );
    expect(batch.request_counts).toMatchObject({ succeeded: 1, expired: 1 });
    await expect(anthropic.messages.batches.create({ requests: [request('has space', 'x')] })).rejects.toMatchObject({ status: 400 });
    await expect(anthropic.messages.batches.create({ requests: [request('a', 'x'), request('a', 'y')] })).rejects.toMatchObject({
      status: 400,
    });
    await expect(
      anthropic.messages.batches.create({ requests: [request('a', 'x', 'claude-sonnet-4-5;batch-status=529')] }),
    ).rejects.toMatchObject({ status: 529 });
    await expect(
      anthropic.messages.batches.create({ requests: [request('a', 'x', 'claude-sonnet-4-5;batch-fail=1')] }),
    ).rejects.toMatchObject({ status: 400 });
    const list = await anthropic.messages.batches.list({ limit: 1 });
    expect(list.data).toHaveLength(1);
  });
});
