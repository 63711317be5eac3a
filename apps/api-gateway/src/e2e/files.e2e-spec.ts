import { execFileSync } from 'node:child_process';
import OpenAI, { toFile } from 'openai';
import type { Batch } from 'openai/resources/batches';
import { describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/*
 * OpenAI's official batch flow with the `openai` client, unchanged (issue 28): files.create,
 * batches.create({input_file_id}), batches.retrieve to `completed`, files.content of the output
 * and error files; files.list / retrieve / delete, the 413 past FILES_MAX_BYTES (2 MB on the e2e
 * stack), and another workspace's file answering 404.
 */

const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
/** Its provider has a batch API: lines without a space in their custom_id run there. */
const MODEL = 'sim/gpt-4o-mini';
const FILES_MAX_BYTES = 2 * 1024 * 1024;
const TERMINAL = ['completed', 'failed', 'expired', 'cancelled'];

interface ResultLine {
  id: string;
  custom_id: string;
  response: { status_code: number; request_id: string | null; body: Record<string, any> } | null;
  error: { type: string; message: string; param: string | null } | null;
}

const jsonl = (lines: unknown[]) => lines.map((line) => `${JSON.stringify(line)}\n`).join('');
const chatLine = (customId: string, content: string, extra: Record<string, unknown> = {}) => ({
  custom_id: customId,
  method: 'POST',
  url: '/v1/chat/completions',
  body: { model: MODEL, messages: [{ role: 'user', content }], max_tokens: 16, ...extra },
});
const upload = async (text: string, name = 'lines.jsonl', client = openai) =>
  client.files.create({ file: await toFile(Buffer.from(text), name), purpose: 'batch' });
const parse = (text: string): ResultLine[] =>
  text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as ResultLine);

async function settled(id: string): Promise<Batch> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const batch = await openai.batches.retrieve(id);
    if (TERMINAL.includes(batch.status)) return batch;
    if (Date.now() > deadline) throw new Error(`batch ${id} still ${batch.status}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function refusal(promise: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(OpenAI.APIError);
  return error as InstanceType<typeof OpenAI.APIError>;
}

// Native: the simulator's batch API runs the lines. Gateway-run: a custom_id with a space, which
// providers' batch APIs refuse, makes the batch service run each line through inference.
describe.each([
  { mode: 'natively at the provider', id: (name: string) => name },
  { mode: 'by the gateway', id: (name: string) => `line ${name}` },
])('the official batch flow, run $mode', ({ id }) => {
  it('uploads a JSONL file, runs a batch from it to completed, and serves every answer in the output file and the failure in the error file', async () => {
    // Valid for the gateway, refused by OpenAI (the simulator) at run time: top_logprobs without logprobs.
    const refused = chatLine(id('refused'), 'Say d', { top_logprobs: 2 });
    const lines = [chatLine(id('a'), 'Say a'), chatLine(id('b'), 'Say b'), chatLine(id('c'), 'Say c'), refused];
    const file = await upload(jsonl(lines));
    expect(file).toMatchObject({ object: 'file', purpose: 'batch', filename: 'lines.jsonl', bytes: Buffer.byteLength(jsonl(lines)) });

    const created = await openai.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    expect(created).toMatchObject({ object: 'batch', status: 'validating', input_file_id: file.id, model: MODEL, output_file_id: null });
    const batch = await settled(created.id);
    expect(batch.status).toBe('completed');
    expect(batch.request_counts).toEqual({ total: 4, completed: 3, failed: 1 });
    expect(batch.output_file_id).toBeTruthy();
    expect(batch.error_file_id).toBeTruthy();

    const output = await (await openai.files.content(batch.output_file_id!)).text();
    const answers = parse(output);
    expect(answers.map((line) => line.custom_id).sort()).toEqual([id('a'), id('b'), id('c')].sort());
    for (const line of answers) {
      expect(line.error).toBeNull();
      expect(line.response!.status_code).toBe(200);
      expect(line.response!.body.object).toBe('chat.completion');
      expect(line.response!.body.choices[0].message.content).toEqual(expect.any(String));
    }
    expect(await openai.files.retrieve(batch.output_file_id!)).toMatchObject({
      id: batch.output_file_id,
      object: 'file',
      purpose: 'batch_output',
      bytes: Buffer.byteLength(output),
    });

    // Spec §2.1.1: a failed line has no response; its failure is in `error`, in the error file and in /results.
    const errors = parse(await (await openai.files.content(batch.error_file_id!)).text());
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      custom_id: id('refused'),
      response: null,
      error: { type: expect.any(String), message: expect.any(String) },
    });
    expect(errors[0]!.error).toHaveProperty('param');
    const results = await call(`/batches/${batch.id}/results`);
    const failed = parse(String(results.body)).find((line) => line.custom_id === id('refused'));
    expect(failed).toMatchObject({ response: null, error: { message: errors[0]!.error!.message } });
  });
});

describe('files', () => {
  it('lists (newest first, after / limit), retrieves, streams back exactly the bytes uploaded (several stored parts), and deletes', async () => {
    // About 1 MB: more than one stored part, so the upload and the content are streamed in pieces.
    const rows = Array.from({ length: 4_000 }, (_, n) => chatLine(`row-${n}`, `Say ${n} é€ ${'x'.repeat(150)}`));
    const big = jsonl(rows);
    const first = await upload(big, 'big.jsonl');
    const second = await upload(jsonl([chatLine('one', 'Say one')]), 'one.jsonl');
    expect(first.bytes).toBe(Buffer.byteLength(big));

    const page = await openai.files.list({ limit: 1 });
    expect(page.data.map((file) => file.id)).toEqual([second.id]);
    expect(page.has_more).toBe(true);
    const next = await openai.files.list({ limit: 1, after: second.id });
    expect(next.data.map((file) => file.id)).toEqual([first.id]);
    const all: string[] = [];
    for await (const file of openai.files.list({ limit: 2 })) all.push(file.id);
    expect(all).toEqual(expect.arrayContaining([first.id, second.id]));

    expect(await openai.files.retrieve(first.id)).toMatchObject({ id: first.id, filename: 'big.jsonl', bytes: first.bytes });
    expect(await (await openai.files.content(first.id)).text()).toBe(big);

    // A batch from it reads every line across the stored parts (multi-byte characters cut between
    // parts included) and names the last one, which is wrong.
    const ending = await upload(jsonl([...rows, { ...chatLine('last', 'x'), method: 'GET' }]), 'ending.jsonl');
    const refused = await refusal(
      openai.batches.create({ input_file_id: ending.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    );
    expect(refused.message).toMatch(/line 4001\.method: must be "POST"/);

    expect(await openai.files.delete(first.id)).toEqual({ id: first.id, object: 'file', deleted: true });
    expect((await refusal(openai.files.retrieve(first.id))).status).toBe(404);
    expect((await openai.files.list()).data.map((file) => file.id)).not.toContain(first.id);
  });

  it('refuses a file over FILES_MAX_BYTES with 413, keeping nothing; a purpose other than batch with 400 naming it', async () => {
    const before = (await openai.files.list()).data.length;
    const tooBig = await refusal(upload('x'.repeat(FILES_MAX_BYTES + 1)));
    expect(tooBig.status).toBe(413);
    expect(tooBig.message).toMatch(/FILES_MAX_BYTES/);
    expect((await openai.files.list()).data.length).toBe(before);

    const fineTune = await refusal(openai.files.create({ file: await toFile(Buffer.from('{}\n'), 'f.jsonl'), purpose: 'fine-tune' }));
    expect(fineTune.status).toBe(400);
    expect(fineTune.message).toMatch(/purpose: "fine-tune" is not supported/);

    const json = await call('/files', { body: { purpose: 'batch' } });
    expect(json.status).toBe(415);
    envelopeOf(json);
  });

  it('validates each line of an input file as an inline request: 400 naming the line and the field', async () => {
    const wrongUrl = await upload(jsonl([chatLine('ok', 'Say ok'), { ...chatLine('bad', 'x'), url: '/v1/embeddings' }]));
    const byUrl = await refusal(
      openai.batches.create({ input_file_id: wrongUrl.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    );
    expect(byUrl.status).toBe(400);
    expect(byUrl.message).toMatch(/line 2\.url: must be the batch's endpoint/);

    const noMessages = await upload(jsonl([{ ...chatLine('m', 'x'), body: { model: MODEL } }]));
    const byBody = await refusal(
      openai.batches.create({ input_file_id: noMessages.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    );
    expect(byBody.status).toBe(400);
    expect(byBody.message).toMatch(/400 line 1\.body\.messages/);

    const notJson = await upload('{"custom_id": "a", \n');
    const byJson = await refusal(
      openai.batches.create({ input_file_id: notJson.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    );
    expect(byJson.message).toMatch(/400 line 1: not valid JSON/);
    // A line is never gathered past BATCH_MAX_LINE_BYTES (1 MB on the stack): 1.5 MB with no newline is a 413.
    const endless = await upload(`{"custom_id": "x", "body": "${'y'.repeat(1_500_000)}`);
    const byLength = await refusal(
      openai.batches.create({ input_file_id: endless.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    );
    expect(byLength.status).toBe(413);
    expect(byLength.message).toMatch(/line 1: longer than \d+ bytes \(BATCH_MAX_LINE_BYTES\)/);

    const both = await call('/batches', {
      body: {
        input_file_id: noMessages.id,
        endpoint: '/v1/chat/completions',
        model: MODEL,
        completion_window: '24h',
        requests: [{ custom_id: 'x', body: { messages: [{ role: 'user', content: 'x' }] } }],
      },
    });
    expect(both.status).toBe(400);
    expect(envelopeOf(both).message).toMatch(/^input_file_id: give requests or input_file_id, not both/);
  });

  it("answers 404 for another workspace's file, on every route and as a batch's input file", async () => {
    const file = await upload(jsonl([chatLine('mine', 'Say mine')]));
    const other = new OpenAI({ apiKey: otherWorkspaceKey(), baseURL: stack.baseUrl, maxRetries: 0 });
    expect((await refusal(other.files.retrieve(file.id))).status).toBe(404);
    expect((await refusal(other.files.content(file.id))).status).toBe(404);
    expect((await refusal(other.files.delete(file.id))).status).toBe(404);
    expect((await other.files.list()).data.map((item) => item.id)).not.toContain(file.id);
    const batch = await refusal(
      other.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    );
    expect(batch.status).toBe(404);
    expect(batch.message).toMatch(/input_file_id/);
    expect(await openai.files.retrieve(file.id)).toMatchObject({ id: file.id });
  });
});

describe('an intern key and files (spec §4.4, as its batches)', () => {
  it("sees its intern's files and their batches' output only; workspace keys see them all", async () => {
    const [mine, other] = await Promise.all([internKey('files-intern-a'), internKey('files-intern-b')]);
    const own = new OpenAI({ apiKey: mine, baseURL: stack.baseUrl, maxRetries: 0 });
    const stranger = new OpenAI({ apiKey: other, baseURL: stack.baseUrl, maxRetries: 0 });
    const file = await upload(jsonl([chatLine('i', 'Say i')]), 'intern.jsonl', own);
    expect((await own.files.list()).data.map((item) => item.id)).toContain(file.id);
    expect((await stranger.files.list()).data.map((item) => item.id)).not.toContain(file.id);
    expect((await refusal(stranger.files.retrieve(file.id))).status).toBe(404);
    expect((await refusal(stranger.files.content(file.id))).status).toBe(404);
    expect(
      (await refusal(stranger.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' })))
        .status,
    ).toBe(404);
    expect(await openai.files.retrieve(file.id)).toMatchObject({ id: file.id });

    const created = await own.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const batch = await settled(created.id);
    expect(batch.output_file_id).toBeTruthy();
    expect(await own.files.retrieve(batch.output_file_id!)).toMatchObject({ id: batch.output_file_id });
    expect((await refusal(stranger.files.retrieve(batch.output_file_id!))).status).toBe(404);
    expect((await refusal(stranger.files.content(batch.output_file_id!))).status).toBe(404);
  });
});

/** A key of one new intern of the stack's workspace (as batches-interns.e2e-spec.ts makes them). */
async function internKey(name: string): Promise<string> {
  const intern = await call('/interns', { body: { name } });
  expect(intern.status, JSON.stringify(intern.body)).toBe(201);
  const key = await call('/keys', {
    key: stack.managementKey,
    body: { name: `${name} key`, intern_id: (intern.body as { id: string }).id },
  });
  expect(key.status, JSON.stringify(key.body)).toBe(201);
  return (key.body as { key: string }).key;
}

/** A key of a new workspace, made by management's CLI. */
function otherWorkspaceKey(): string {
  const made = JSON.parse(
    execFileSync(
      process.execPath,
      ['apps/management/dist/cli/create-key.js', '--json', '--management', '--name', 'files other workspace'],
      {
        env: { ...process.env, MANAGEMENT_DATABASE_URL: stack.managementDatabaseUrl },
        encoding: 'utf8',
      },
    ),
  ) as { secret: string };
  return made.secret;
}
