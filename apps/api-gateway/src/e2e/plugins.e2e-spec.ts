import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalPdfDataUrl } from '@gw/testing';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/**
 * Plugins (issue 12) through the gateway, with the `openai` client and raw HTTP:
 * every plugin id shows its effect or is refused by name. The simulated models answer
 * deterministically (tools/provider-simulator plugin-models.ts): they cite the web results a
 * system message hands them (with `[n]` markers), `sim/llama-guard` flags "bomb", the judge
 * breaks a rule that quotes a phrase the answer contains, and `sim/gpt-4o-mini-sloppy-json`
 * fences its JSON with a trailing comma.
 */
const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const SEARCH_PRICE = 0.005;

type Annotation = { type: string; url_citation: { url: string; title: string; start_index: number; end_index: number } };
type Message = OpenAI.Chat.ChatCompletionMessage & { annotations?: Annotation[] };

async function chat(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return call('/chat/completions', { body: { model: 'sim/gpt-4o-mini', ...body }, headers });
}

function messageOf(result: { body: unknown }): Message {
  return (result.body as OpenAI.Chat.ChatCompletion).choices[0]!.message as Message;
}

/** The chunks of a raw SSE chat stream. */
async function streamChunks(body: Record<string, unknown>): Promise<Array<Record<string, any>>> {
  const response = await fetch(`${stack.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'sim/gpt-4o-mini', stream: true, ...body }),
  });
  expect(response.status).toBe(200);
  const text = await response.text();
  const events = text.split('\n\n').filter(Boolean);
  expect(events.at(-1)).toBe('data: [DONE]');
  return events.slice(0, -1).map((event) => JSON.parse(event.slice('data: '.length)));
}

describe('plugins: refused by name', () => {
  it('an unknown id is a 400 naming it, on chat and responses', async () => {
    for (const [path, body] of [
      ['/chat/completions', { model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }],
      ['/responses', { model: 'sim/gpt-4o-mini', input: 'Hi' }],
    ] as const) {
      const result = await call(path, { body: { ...body, plugins: [{ id: 'web' }, { id: 'telepathy' }] } });
      expect(result.status, path).toBe(400);
      expect(envelopeOf(result).message).toMatch(/plugins\[1\]: unknown plugin "telepathy"/);
    }
  });

  it.each(['fusion', 'pareto-router', 'phaser', 'auto-beta-router', 'switchyard-router'])(
    '%s is a 400 saying it is not supported here',
    async (id) => {
      const result = await chat({ messages: [{ role: 'user', content: 'Hi' }], plugins: [{ id }] });
      expect(result.status).toBe(400);
      const error = envelopeOf(result);
      expect(error.message).toContain(`the ${id} plugin is not supported here`);
      expect(error.metadata).toMatchObject({ error_type: 'invalid_request' });
    },
  );

  it('a preset cannot store a plugin that would be refused when used', async () => {
    const unsupported = await call('/presets/plugin-check/chat/completions', {
      key: stack.managementKey,
      body: { model: 'sim/gpt-4o-mini', messages: [{ role: 'system', content: 'x' }], plugins: [{ id: 'pareto-router' }] },
    });
    expect(unsupported.status).toBe(400);
    expect(envelopeOf(unsupported).message).toContain('the pareto-router plugin is not supported here');
  });

  it('an option a plugin does not take, and answer plugins on streams, are 400s; /v1/messages refuses plugins', async () => {
    expect(
      envelopeOf(await chat({ messages: [{ role: 'user', content: 'Hi' }], plugins: [{ id: 'web', max_result: 2 }] })).message,
    ).toContain('plugins[0].max_result is not an option of the web plugin');
    const healing = await chat({
      stream: true,
      response_format: { type: 'json_object' },
      messages: [{ role: 'user', content: 'Hi' }],
      plugins: [{ id: 'response-healing' }],
    });
    expect(healing.status).toBe(400);
    expect(envelopeOf(healing).message).toContain('response-healing repairs a whole answer and does not run on streams');
    const messages = await call('/messages', {
      body: { model: 'sim/claude-sonnet', max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }], plugins: [{ id: 'web' }] },
      headers: { 'anthropic-version': '2023-06-01' },
    });
    expect(messages.status).toBe(400);
    expect(JSON.stringify(messages.body)).toContain('plugins are not supported on /v1/messages (web)');
    const serviceTool = await call('/messages', {
      body: {
        model: 'sim/claude-sonnet',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'Hi' }],
        tools: [{ type: 'service:web_search' }],
      },
      headers: { 'anthropic-version': '2023-06-01' },
    });
    expect(serviceTool.status).toBe(400);
    expect(JSON.stringify(serviceTool.body)).toContain(
      'service:web_search is run by the service on /v1/chat/completions and /v1/responses',
    );
  });
});

describe('plugins: each does what it says', () => {
  const database = new pg.Client({ connectionString: stack.inferenceDatabaseUrl });
  beforeAll(() => database.connect());
  afterAll(() => database.end());

  /** The generation records of a session, once `count` of them are written. */
  async function generationsOf(
    sessionId: string,
    count: number,
  ): Promise<Array<{ model: string; prompt_tokens: number; completion_tokens: number; cost: string }>> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { rows } = await database.query(
        'SELECT model, prompt_tokens, completion_tokens, cost::text AS cost FROM generations WHERE session_id = $1 ORDER BY created_at',
        [sessionId],
      );
      if (rows.length >= count || Date.now() > deadline) return rows;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it("usage is the sum of the generation records: the answer, the moderation call, the judge call, the search's price", async () => {
    const session = randomUUID();
    const result = await chat({
      session_id: session,
      messages: [{ role: 'user', content: 'What is the capital of Atlantis?' }],
      plugins: [{ id: 'moderation' }, { id: 'web' }, { id: 'alignment', rules: ['Never mention "banana"'] }],
    });
    expect(result.status).toBe(200);
    const usage = (
      result.body as { usage: { prompt_tokens: number; completion_tokens: number; cost: number; server_tool_use: Record<string, number> } }
    ).usage;
    const rows = await generationsOf(session, 3);
    expect(rows.map((row) => row.model).sort()).toEqual(['sim/alignment-judge', 'sim/gpt-4o-mini', 'sim/llama-guard']);
    expect(rows.reduce((total, row) => total + row.prompt_tokens, 0)).toBe(usage.prompt_tokens);
    expect(rows.reduce((total, row) => total + row.completion_tokens, 0)).toBe(usage.completion_tokens);
    expect(rows.reduce((total, row) => total + Number(row.cost), 0)).toBeCloseTo(usage.cost, 10);
    expect(usage.server_tool_use.web_search_requests).toBe(1);
    expect(usage.cost).toBeGreaterThan(SEARCH_PRICE);
  });

  it('web: searches the last user message, the answer cites the results (url_citation), the search is counted and priced', async () => {
    const completion = await openai.chat.completions.create({
      model: 'sim/gpt-4o-mini',
      messages: [{ role: 'user', content: 'What is the capital of Atlantis?' }],
      plugins: [{ id: 'web', max_results: 3 }],
    } as never);
    const message = completion.choices[0]!.message as Message;
    const page = `${stack.searchSimulatorUrl}/pages/atlantis-capital`;
    expect(message.content).toContain(`(${page}) [1]`);
    const citation = message.annotations!.find((annotation) => annotation.url_citation.url === page)!;
    expect(citation.type).toBe('url_citation');
    expect(message.content!.slice(citation.url_citation.start_index, citation.url_citation.end_index)).toBe(
      `[${citation.url_citation.title}](${page})`,
    );
    const usage = completion.usage as unknown as Record<string, any>;
    expect(usage.server_tool_use).toMatchObject({ web_search_requests: 1 });
    expect(
      usage.cost - usage.cost_details.upstream_inference_prompt_cost - usage.cost_details.upstream_inference_completions_cost,
    ).toBeCloseTo(SEARCH_PRICE, 10);
  });

  it('web on an Anthropic-format model: the results reach its system prompt and the answer cites them', async () => {
    const result = await chat({
      model: 'sim/claude-sonnet',
      messages: [{ role: 'user', content: 'What is the capital of Atlantis?' }],
      plugins: [{ id: 'web' }],
    });
    expect(result.status).toBe(200);
    expect(
      messageOf(result).annotations!.some(
        (annotation) => annotation.url_citation.url === `${stack.searchSimulatorUrl}/pages/atlantis-capital`,
      ),
    ).toBe(true);
  });

  it('strip-citation-markers: the [n] markers go, the citations stay and still point at their links', async () => {
    const result = await chat({
      messages: [{ role: 'user', content: 'What is the capital of Atlantis?' }],
      plugins: [{ id: 'web' }, { id: 'strip-citation-markers' }],
    });
    expect(result.status).toBe(200);
    const message = messageOf(result);
    expect(message.content).not.toMatch(/\[\d\]/);
    expect(message.annotations!.length).toBeGreaterThan(0);
    for (const { url_citation: cited } of message.annotations!)
      expect(message.content!.slice(cited.start_index, cited.end_index)).toBe(`[${cited.title}](${cited.url})`);
  });

  it('web + strip-citation-markers on a stream: markers stripped across chunks, citations on the last chunk', async () => {
    const chunks = await streamChunks({
      messages: [{ role: 'user', content: 'What is the capital of Atlantis?' }],
      plugins: [{ id: 'web' }, { id: 'strip-citation-markers' }],
    });
    const text = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
    expect(text).toContain(`${stack.searchSimulatorUrl}/pages/atlantis-capital`);
    expect(text).not.toMatch(/\[\d\]/);
    const last = chunks.find((chunk) => chunk.choices[0]?.finish_reason)!;
    const annotations = last.choices[0].delta.annotations as Annotation[];
    expect(annotations.length).toBeGreaterThan(0);
    for (const { url_citation: cited } of annotations)
      expect(text.slice(cited.start_index, cited.end_index)).toBe(`[${cited.title}](${cited.url})`);
  });

  it("with server tools too: a loop stream strips the markers and cites the plugin's results (chat and responses)", async () => {
    const body = {
      messages: [{ role: 'user', content: 'What is the capital of Atlantis?' }],
      tools: [{ type: 'service:web_search' }],
      plugins: [{ id: 'web' }, { id: 'strip-citation-markers' }],
    };
    const chunks = await streamChunks(body);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
    expect(text).toContain(`${stack.searchSimulatorUrl}/pages/atlantis-capital`);
    expect(text).not.toMatch(/\[\d\]/);
    const annotations = chunks.find((chunk) => chunk.choices[0]?.finish_reason)!.choices[0].delta.annotations as Annotation[];
    expect(annotations.length).toBeGreaterThan(0);
    for (const { url_citation: cited } of annotations)
      expect(text.slice(cited.start_index, cited.end_index)).toBe(`[${cited.title}](${cited.url})`);

    const response = await fetch(`${stack.baseUrl}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'sim/gpt-5-mini',
        stream: true,
        input: 'What is the capital of Atlantis?',
        tools: [{ type: 'service:web_search' }],
        plugins: [{ id: 'web' }, { id: 'strip-citation-markers' }],
      }),
    });
    const events = (await response.text())
      .split('\n\n')
      .filter((frame) => frame.includes('data: {'))
      .map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)));
    const completed = events.find((event) => event.type === 'response.completed').response;
    const part = completed.output.find((item: { type: string }) => item.type === 'message').content[0];
    expect(part.text).not.toMatch(/\[\d\]/);
    expect(
      part.annotations.some(
        (annotation: { type: string; url: string }) =>
          annotation.type === 'url_citation' && annotation.url.endsWith('/pages/atlantis-capital'),
      ),
    ).toBe(true);
  });

  it('web on /v1/responses: the output text carries url_citation annotations', async () => {
    const response = (await openai.responses.create({
      model: 'sim/gpt-5-mini',
      input: 'What is the capital of Atlantis?',
      plugins: [{ id: 'web' }],
    } as never)) as OpenAI.Responses.Response;
    const message = response.output.find((item) => item.type === 'message') as OpenAI.Responses.ResponseOutputMessage;
    const part = message.content[0] as OpenAI.Responses.ResponseOutputText;
    expect(
      part.annotations.some(
        (annotation) => annotation.type === 'url_citation' && annotation.url === `${stack.searchSimulatorUrl}/pages/atlantis-capital`,
      ),
    ).toBe(true);
  });

  it('web-fetch: fetches the URLs of the last user message and cites them; private addresses are refused, not fetched', async () => {
    const page = `${stack.searchSimulatorUrl}/pages/zephyr-language`;
    const result = await chat({
      messages: [{ role: 'user', content: `Summarise ${page} and http://169.254.169.254/latest/meta-data please` }],
      plugins: [{ id: 'web-fetch' }],
    });
    expect(result.status).toBe(200);
    const message = messageOf(result);
    expect(message.content).toContain(`(${page})`);
    expect(message.annotations!.some((annotation) => annotation.url_citation.url === page)).toBe(true);
    expect(message.content).toMatch(/could not be fetched/);
    expect(message.annotations!.some((annotation) => annotation.url_citation.url.includes('169.254'))).toBe(false);
  });

  it('file-parser: a PDF file part reaches a model that cannot read files as its text', async () => {
    const pdf = minimalPdfDataUrl('The secret code is PINEAPPLE-42');
    const content = [
      { type: 'file', file: { filename: 'code.pdf', file_data: pdf } },
      { type: 'text', text: 'What is the code?' },
    ];
    const result = await chat({ messages: [{ role: 'user', content }], plugins: [{ id: 'file-parser', pdf: { engine: 'pdf-text' } }] });
    expect(result.status).toBe(200);
    // The simulated model repeats the first words of the user's text: the PDF's, now.
    expect(messageOf(result).content).toContain('PINEAPPLE-42');
  });

  it('file-parser: a PDF by URL is read through the SSRF-guarded fetcher; a private address is refused by name', async () => {
    const pdfUrl = `${stack.searchSimulatorUrl}/pages/zephyr-language.pdf`;
    const content = [
      { type: 'file', file: { filename: 'zephyr.pdf', file_data: pdfUrl } },
      { type: 'text', text: 'What is this about?' },
    ];
    const result = await chat({ messages: [{ role: 'user', content }], plugins: [{ id: 'file-parser', pdf: { engine: 'pdf-text' } }] });
    expect(result.status).toBe(200);
    expect(messageOf(result).content).toContain('The Zephyr programming language');
    const refused = await chat({
      messages: [{ role: 'user', content: [{ type: 'file', file: { file_data: 'http://169.254.169.254/latest/doc.pdf' } }] }],
      plugins: [{ id: 'file-parser', pdf: { engine: 'pdf-text' } }],
    });
    expect(refused.status).toBe(400);
    expect(envelopeOf(refused).message).toMatch(/file-parser could not read http:\/\/169\.254\.169\.254/);
  });

  it('context-compression: a conversation too long for the model is compressed middle-out instead of failing', async () => {
    const filler = (label: string) => `${label}: ${'lorem ipsum dolor sit amet '.repeat(60)}`;
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: filler('first') },
      { role: 'assistant', content: filler('second') },
      { role: 'user', content: filler('third') },
      { role: 'assistant', content: filler('fourth') },
      { role: 'user', content: 'And the final question?' },
    ];
    const refused = await chat({ model: 'sim/gpt-4o-mini-small-context', messages });
    expect(refused.status).toBe(400);
    expect(envelopeOf(refused).metadata).toMatchObject({ error_type: 'context_length_exceeded' });
    const compressed = await chat({ model: 'sim/gpt-4o-mini-small-context', messages, plugins: [{ id: 'context-compression' }] });
    expect(compressed.status).toBe(200);
    expect(messageOf(compressed).content).toContain('And the final question');
  });

  it('response-healing: fenced JSON with a trailing comma comes back as valid JSON (chat and responses)', async () => {
    const body = {
      model: 'sim/gpt-4o-mini-sloppy-json',
      response_format: { type: 'json_object' },
      messages: [{ role: 'user', content: 'Answer in JSON' }],
    };
    const raw = messageOf(await chat(body)).content!;
    expect(() => JSON.parse(raw)).toThrow();
    const healed = messageOf(await chat({ ...body, plugins: [{ id: 'response-healing' }] })).content!;
    expect(JSON.parse(healed)).toHaveProperty('reply');
    const response = await call('/responses', {
      body: {
        model: 'sim/gpt-4o-mini-sloppy-json',
        input: 'Answer in JSON',
        text: { format: { type: 'json_object' } },
        plugins: [{ id: 'response-healing' }],
      },
    });
    expect(response.status).toBe(200);
    expect(JSON.parse((response.body as { output_text: string }).output_text)).toHaveProperty('reply');
  });

  it('moderation: flagged input is a 403 content_policy_violation naming the categories; clean input passes', async () => {
    const flagged = await chat({ messages: [{ role: 'user', content: 'How do I build a bomb?' }], plugins: [{ id: 'moderation' }] });
    expect(flagged.status).toBe(403);
    const error = envelopeOf(flagged);
    expect(error.message).toContain('Your input was flagged by moderation: indiscriminate weapons');
    expect(error.metadata).toMatchObject({
      error_type: 'content_policy_violation',
      reasons: ['indiscriminate weapons'],
      model_slug: 'sim/llama-guard',
    });
    const clean = await chat({ messages: [{ role: 'user', content: 'How do I bake bread?' }], plugins: [{ id: 'moderation' }] });
    expect(clean.status).toBe(200);
    const flaggedStream = await call('/chat/completions', {
      body: {
        model: 'sim/gpt-4o-mini',
        stream: true,
        messages: [{ role: 'user', content: 'bomb recipe' }],
        plugins: [{ id: 'moderation' }],
      },
    });
    expect(flaggedStream.status).toBe(403);
  });

  it('auto-router: openrouter/auto picks within allowed_models by price; cost_tier moves up the band; routing metadata says so', async () => {
    const allowed = ['sim/gpt-4o-mini', 'sim/gpt-5-mini', 'sim/claude-sonnet'];
    const cheapest = await chat(
      { model: 'openrouter/auto', messages: [{ role: 'user', content: 'Hi' }], plugins: [{ id: 'auto-router', allowed_models: allowed }] },
      { 'x-service-metadata': 'enabled' },
    );
    expect(cheapest.status).toBe(200);
    const body = cheapest.body as { model: string; service_metadata: { requested: string; strategy: string; summary: string } };
    expect(body.model).toBe('sim/gpt-4o-mini');
    expect(body.service_metadata).toMatchObject({ requested: 'openrouter/auto', strategy: 'auto-router' });
    expect(body.service_metadata.summary).toContain('auto-router chose sim/gpt-4o-mini');
    const max = await chat({
      model: 'openrouter/auto',
      messages: [{ role: 'user', content: 'Hi' }],
      plugins: [{ id: 'auto-router', allowed_models: allowed, cost_tier: 'max' }],
    });
    expect((max.body as { model: string }).model).toBe('sim/claude-sonnet');
    const concrete = await chat({ messages: [{ role: 'user', content: 'Hi' }], plugins: [{ id: 'auto-router' }] });
    expect(envelopeOf(concrete).message).toContain('set model to "openrouter/auto"');
  });

  it("alignment: the judge's record (spec 2.6) on chat and responses; audit flags; enforce retries then fails with the record", async () => {
    const allowed = await chat({
      messages: [{ role: 'user', content: 'Hi' }],
      plugins: [{ id: 'alignment', rules: ['Never mention "banana"'] }],
    });
    expect(allowed.status).toBe(200);
    expect((allowed.body as { alignment: unknown }).alignment).toEqual({
      calls: [{ call: 1, outcome: 'allowed', rules: [{ broken: false, probability: 0.05 }] }],
    });

    // Every simulated reply starts "Simulated reply to:".
    const audit = await call('/responses', {
      body: { model: 'sim/gpt-5-mini', input: 'Hi', plugins: [{ id: 'alignment', rules: ['Never say "simulated"'], mode: 'audit' }] },
    });
    expect(audit.status).toBe(200);
    expect((audit.body as { alignment: unknown }).alignment).toEqual({
      calls: [{ call: 1, outcome: 'flagged', rules: [{ broken: true, probability: 0.9 }] }],
    });

    const session = randomUUID();
    const enforced = await chat({
      session_id: session,
      messages: [{ role: 'user', content: 'Hi' }],
      plugins: [{ id: 'alignment', rules: ['Never say "simulated"', 'Never mention "banana"'], maxRetries: 1 }],
    });
    expect(enforced.status).toBe(403);
    const error = envelopeOf(enforced);
    expect(error.metadata).toMatchObject({ error_type: 'content_policy_violation', reason: 'alignment_failed' });
    expect(error.metadata!.alignment).toEqual({
      calls: [1, 2].map((call) => ({
        call,
        outcome: 'blocked',
        rules: [
          { broken: true, probability: 0.9 },
          { broken: false, probability: 0.05 },
        ],
      })),
    });
  });
});
