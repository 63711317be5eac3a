import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { OpenRouter } from '@openrouter/sdk';
import { NotFoundResponseError } from '@openrouter/sdk/models/errors';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/** A management key of a new workspace of its own (management's CLI): its setting touches no other test. */
function newWorkspaceKey(): string {
  const created = execFileSync(
    process.execPath,
    ['apps/management/dist/cli/create-key.js', '--json', '--management', '--name', 'content'],
    {
      env: { ...process.env, MANAGEMENT_DATABASE_URL: stack.managementDatabaseUrl },
      encoding: 'utf8',
    },
  );
  return (JSON.parse(created) as { secret: string }).secret;
}

const SECRET = `sk-proj-${'Q'.repeat(40)}`;

/** Content logging (`GET /v1/generation/content`, `PUT /v1/content-logging`) with `@openrouter/sdk`. */
describe('generation content logging', () => {
  const key = newWorkspaceKey();
  const sdk = new OpenRouter({ apiKey: key, serverURL: stack.baseUrl });
  let openai: OpenAI;
  let anthropic: Anthropic;
  let google: GoogleGenAI;
  const database = new pg.Client({ connectionString: stack.inferenceDatabaseUrl });
  beforeAll(async () => {
    await database.connect();
    expect((await call('/credits', { key, body: { amount: 5 } })).status).toBeLessThan(300);
    // Management keys run no inference: a standard key of the same workspace chats.
    const created = await call('/keys', { key, body: { name: 'content chats' } });
    expect(created.status).toBe(201);
    const chatKey = (created.body as { key: string }).key;
    openai = new OpenAI({ apiKey: chatKey, baseURL: stack.baseUrl, maxRetries: 0 });
    anthropic = new Anthropic({ apiKey: chatKey, baseURL: stack.baseUrl.replace(/\/v1$/, ''), maxRetries: 0 });
    google = new GoogleGenAI({ apiKey: chatKey, httpOptions: { baseUrl: new URL(stack.baseUrl).origin } });
  });
  afterAll(() => database.end());

  it('is off by default: a generation has no content', async () => {
    const setting = await call('/content-logging', { key });
    expect(setting.status).toBe(200);
    expect((setting.body as { data: { enabled: boolean; available: boolean } }).data).toMatchObject({ enabled: false, available: true });
    const completion = await openai.chat.completions.create({
      model: 'sim/gpt-4o-mini',
      messages: [{ role: 'user', content: 'not kept' }],
    });
    const content = await call(`/generation/content?id=${completion.id}`, { key });
    expect(content.status).toBe(404);
    expect(envelopeOf(content).metadata).toMatchObject({ reason: 'content_not_stored' });
  });

  it('keeps the prompt and completion once turned on, redacted and sealed, for chat, streams and Messages', async () => {
    const on = await call('/content-logging', { key, method: 'PUT', body: { enabled: true, retention_days: 7 } });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect((on.body as { data: { enabled: boolean; retention_days: number } }).data).toMatchObject({ enabled: true, retention_days: 7 });

    const prompt = `Remember my key ${SECRET} please`;
    const completion = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: prompt }] });
    const { data } = await sdk.generations.listGenerationContent({ id: completion.id });
    expect(data.input).toEqual({ messages: [{ role: 'user', content: 'Remember my key [REDACTED:openai_key] please' }] });
    // The simulator echoes the prompt: the answer's copy of the key is redacted too.
    const answered = completion.choices[0]!.message.content!;
    expect(answered).toContain(SECRET);
    expect(data.output.completion).toBe(answered.replaceAll(SECRET, '[REDACTED:openai_key]'));
    expect(data.error).toBeNull();

    const stream = await openai.chat.completions.create({
      model: 'sim/claude-sonnet',
      messages: [{ role: 'user', content: 'stream it' }],
      stream: true,
    });
    let id = '';
    let text = '';
    for await (const chunk of stream) {
      id = chunk.id;
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect((await sdk.generations.listGenerationContent({ id })).data.output.completion).toBe(text);

    const message = await anthropic.messages.create({
      model: 'sim/claude-sonnet',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'via messages' }],
    });
    const stored = await sdk.generations.listGenerationContent({ id: message.id });
    expect(stored.data.output.completion).toBe(message.content.map((block) => (block.type === 'text' ? block.text : '')).join(''));

    // At rest: no plaintext of the prompt or the answer in the row.
    const row = await database.query<{ sealed: string }>(
      `SELECT encode(encrypted, 'escape') || encode(wrapped_data_key, 'escape') AS sealed, redactions FROM generation_contents WHERE generation_id = $1`,
      [completion.id],
    );
    expect(row.rows).toHaveLength(1);
    expect(row.rows[0]!.sealed).not.toContain('Remember my key');
    expect(row.rows[0]!.sealed).not.toContain(SECRET);
  });

  it('keeps it for streamed Messages and Responses, the Gemini front door and embeddings, redacted the same way', async () => {
    const redacted = (text: string) => text.replaceAll(SECRET, '[REDACTED:openai_key]');
    const stored = async (id: string) => (await sdk.generations.listGenerationContent({ id })).data;
    const expectRedactedInput = (input: unknown) => {
      expect(JSON.stringify(input)).toContain('[REDACTED:openai_key]');
      expect(JSON.stringify(input)).not.toContain(SECRET);
    };

    // Messages streamed: relayed from an Anthropic-format endpoint, and translated from an OpenAI-format one.
    for (const model of ['sim/claude-sonnet', 'sim/gpt-4o-mini']) {
      const message = await anthropic.messages
        .stream({ model, max_tokens: 64, messages: [{ role: 'user', content: `stream ${model} with ${SECRET}` }] })
        .finalMessage();
      const text = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      expect(text.length, model).toBeGreaterThan(0);
      const content = await stored(message.id);
      expect(content.output.completion, model).toBe(redacted(text));
      expectRedactedInput(content.input);
    }

    // Responses streamed: the response names no generation, its session does.
    const sessionId = `content-${randomUUID()}`;
    const events = await openai.responses.create(
      { model: 'sim/gpt-5-mini', input: `respond with ${SECRET}`, stream: true },
      { headers: { 'x-session-id': sessionId } },
    );
    let responded = '';
    for await (const event of events) if (event.type === 'response.output_text.delta') responded += event.delta;
    let id: string | undefined;
    for (const deadline = Date.now() + 30_000; !id && Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
      id = (await database.query<{ id: string }>('SELECT id FROM generations WHERE session_id = $1', [sessionId])).rows[0]?.id;
    }
    const response = await stored(id!);
    expect(response.output.completion).toBe(redacted(responded));
    expectRedactedInput(response.input);

    // Gemini's generateContent, whole and streamed (its responseId is the generation id).
    const whole = await google.models.generateContent({ model: 'sim/gemini-2.5-flash', contents: `whole with ${SECRET}` });
    const wholeContent = await stored(whole.responseId!);
    expect(wholeContent.output.completion).toBe(redacted(whole.text!));
    expectRedactedInput(wholeContent.input);
    let streamedText = '';
    let streamId = '';
    for await (const chunk of await google.models.generateContentStream({ model: 'sim/gemini-2.5-flash', contents: 'gemini streamed' })) {
      streamedText += chunk.text ?? '';
      streamId = chunk.responseId ?? streamId;
    }
    expect(streamedText.length).toBeGreaterThan(0);
    expect((await stored(streamId)).output.completion).toBe(streamedText);

    // Embeddings: the input as the prompt, no completion (vectors are not kept).
    const embedded = (await openai.embeddings.create({ model: 'sim/text-embedding-3-small', input: `embed ${SECRET}` })) as unknown as {
      id: string;
    };
    expect(await stored(embedded.id)).toEqual({
      input: { prompt: 'embed [REDACTED:openai_key]' },
      output: { completion: null, reasoning: null },
      error: null,
    });
  });

  it('shows another workspace nothing, refuses a standard key the setting, and stops when turned off', async () => {
    const completion = await openai.chat.completions.create({ model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'mine' }] });
    await sdk.generations.listGenerationContent({ id: completion.id });
    const stranger = new OpenRouter({ apiKey: stack.managementKey, serverURL: stack.baseUrl });
    await expect(stranger.generations.listGenerationContent({ id: completion.id })).rejects.toBeInstanceOf(NotFoundResponseError);
    const strangerRaw = await call(`/generation/content?id=${completion.id}`, { key: stack.managementKey });
    expect(envelopeOf(strangerRaw).metadata).toMatchObject({ reason: 'not_found' });

    const standard = await call('/content-logging', { method: 'PUT', body: { enabled: true } });
    expect(standard.status).toBe(403);
    await expect(
      new OpenRouter({ apiKey: stack.apiKey, serverURL: stack.baseUrl }).generations.getGeneration({ id: completion.id }),
    ).rejects.toBeInstanceOf(NotFoundResponseError);
    expect((await call('/content-logging', { key, method: 'PUT', body: { enabled: true, retention_days: 100_000 } })).status).toBe(400);

    expect((await call('/content-logging', { key, method: 'PUT', body: { enabled: false } })).status).toBe(200);
    const after = await openai.chat.completions.create({
      model: 'sim/gpt-4o-mini',
      messages: [{ role: 'user', content: 'not kept again' }],
    });
    await expect(sdk.generations.listGenerationContent({ id: after.id })).rejects.toBeInstanceOf(NotFoundResponseError);
    // What was stored before stays readable until it expires.
    expect((await sdk.generations.listGenerationContent({ id: completion.id })).data.output.completion).toBe(
      completion.choices[0]!.message.content,
    );
  });
});
