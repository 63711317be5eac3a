import { randomUUID } from 'node:crypto';
import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/**
 * Server tools (issue 12) through the gateway with the `openai` client: the
 * simulated model searches when asked (tools/provider-simulator search-agent.ts), inference runs
 * the search on the search simulator, calls the model again, and answers with citations; every
 * model call is its own generation record and the answer's usage is their sum.
 */
const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const QUESTION = 'Search the web for the capital of Atlantis.';
const THREE = 'Do 3 searches: search for the Zephyr language.';
const SEARCH_PRICE = 0.005; // WEB_SEARCH_PRICE's default

interface GenerationRow {
  id: string;
  prompt_tokens: number;
  completion_tokens: number;
  cost: string;
  usage_details: Record<string, number> | null;
}

describe('server tools', () => {
  const database = new pg.Client({ connectionString: stack.inferenceDatabaseUrl });
  beforeAll(() => database.connect());
  afterAll(() => database.end());

  /** The generation records of a session, once `count` of them are written. */
  async function generationsOf(sessionId: string, count: number): Promise<GenerationRow[]> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { rows } = await database.query<GenerationRow>(
        'SELECT id, prompt_tokens, completion_tokens, cost::text AS cost, usage_details FROM generations WHERE session_id = $1 ORDER BY created_at',
        [sessionId],
      );
      if (rows.length >= count || Date.now() > deadline) {
        // Nothing more arrives late.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const { rows: settled } = await database.query<GenerationRow>(
          'SELECT id, prompt_tokens, completion_tokens, cost::text AS cost, usage_details FROM generations WHERE session_id = $1 ORDER BY created_at',
          [sessionId],
        );
        return settled;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  function expectSumsMatch(rows: GenerationRow[], usage: { prompt: number; completion: number; cost: number }): void {
    expect(rows.reduce((total, row) => total + row.prompt_tokens, 0)).toBe(usage.prompt);
    expect(rows.reduce((total, row) => total + row.completion_tokens, 0)).toBe(usage.completion);
    expect(rows.reduce((total, row) => total + Number(row.cost), 0)).toBeCloseTo(usage.cost, 10);
  }

  it('chat: the model searches, the answer cites the results, usage is the sum of the generation records with the search priced in', async () => {
    const session = randomUUID();
    const completion = await openai.chat.completions.create({
      model: 'sim/gpt-4o-mini',
      messages: [{ role: 'user', content: QUESTION }],
      tools: [{ type: 'service:web_search' } as never],
      session_id: session,
    } as never);
    const message = completion.choices[0]!.message as OpenAI.Chat.ChatCompletionMessage & {
      annotations?: Array<{ type: string; url_citation: { url: string; title: string; start_index: number; end_index: number } }>;
    };
    expect(message.content).toContain('Poseidonia');
    expect(message.tool_calls).toBeUndefined();
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    const citation = message.annotations!.find(
      (annotation) => annotation.url_citation.url === `${stack.searchSimulatorUrl}/pages/atlantis-capital`,
    )!;
    expect(citation).toMatchObject({ type: 'url_citation', url_citation: { title: 'Poseidonia, capital of Atlantis' } });
    expect(message.content!.slice(citation.url_citation.start_index, citation.url_citation.end_index)).toBe(
      `[Poseidonia, capital of Atlantis](${stack.searchSimulatorUrl}/pages/atlantis-capital)`,
    );
    const usage = completion.usage as unknown as Record<string, any>;
    expect(usage.server_tool_use).toEqual({ tool_calls_executed: 1, tool_calls_requested: 1, web_search_requests: 1 });
    expect(usage.server_tool_use_details).toEqual(usage.server_tool_use);

    const rows = await generationsOf(session, 2);
    expect(rows).toHaveLength(2);
    expect(rows.map((row) => row.usage_details?.web_search_requests ?? 0)).toEqual([1, 0]);
    expectSumsMatch(rows, { prompt: usage.prompt_tokens, completion: usage.completion_tokens, cost: usage.cost });
    // The search's price is in the cost of the call that asked for it.
    expect(Number(rows[0]!.cost)).toBeGreaterThan(SEARCH_PRICE);
    expect(
      usage.cost - usage.cost_details.upstream_inference_prompt_cost - usage.cost_details.upstream_inference_completions_cost,
    ).toBeCloseTo(SEARCH_PRICE, 10);
  });

  it('responses: web_search_call items, a cited message, usage with server_tool_use', async () => {
    const session = randomUUID();
    const response = await openai.responses.create({
      model: 'sim/gpt-4o-mini',
      input: QUESTION,
      tools: [{ type: 'service:web_search' } as never],
      session_id: session,
    } as never);
    const types = response.output.map((item) => item.type);
    expect(types).toEqual(['web_search_call', 'message']);
    const search = response.output[0] as unknown as {
      status: string;
      action: { type: string; query: string; sources: Array<{ url: string }> };
    };
    expect(search).toMatchObject({ status: 'completed', action: { type: 'search', query: 'the capital of Atlantis' } });
    expect(search.action.sources[0]!.url).toBe(`${stack.searchSimulatorUrl}/pages/atlantis-capital`);
    expect(response.output_text).toContain('Poseidonia');
    const message = response.output[1] as OpenAI.Responses.ResponseOutputMessage;
    const text = message.content[0] as OpenAI.Responses.ResponseOutputText;
    expect(
      text.annotations.some(
        (annotation) => annotation.type === 'url_citation' && annotation.url === `${stack.searchSimulatorUrl}/pages/atlantis-capital`,
      ),
    ).toBe(true);
    const usage = response.usage as unknown as Record<string, any>;
    expect(usage.server_tool_use).toEqual({ tool_calls_executed: 1, tool_calls_requested: 1, web_search_requests: 1 });
    const rows = await generationsOf(session, 2);
    expect(rows).toHaveLength(2);
    expectSumsMatch(rows, { prompt: usage.input_tokens, completion: usage.output_tokens, cost: usage.cost });

    // The next turn sends the whole output back, web_search_call items included.
    const next = await openai.responses.create({
      model: 'sim/gpt-4o-mini',
      input: [{ role: 'user', content: QUESTION }, ...response.output, { role: 'user', content: 'Thanks, and its population?' }] as never,
      tools: [{ type: 'service:web_search' } as never],
    } as never);
    expect(next.status).toBe('completed');
  });

  it('the same on an Anthropic-format provider (tool_use / tool_result, tool_choice none on the last turn)', async () => {
    const session = randomUUID();
    const completion = await openai.chat.completions.create({
      model: 'sim/claude-sonnet',
      messages: [{ role: 'user', content: THREE }],
      tools: [{ type: 'service:web_search' } as never],
      session_id: session,
      stop_server_tools_when: [{ type: 'step_count_is', step_count: 2 }],
    } as never);
    expect(completion.choices[0]!.message.content).toContain('Zephyr');
    const usage = completion.usage as unknown as Record<string, any>;
    expect(usage.server_tool_use).toEqual({ tool_calls_executed: 2, tool_calls_requested: 2, web_search_requests: 2 });
    const rows = await generationsOf(session, 3);
    expect(rows).toHaveLength(3);
    expectSumsMatch(rows, { prompt: usage.prompt_tokens, completion: usage.completion_tokens, cost: usage.cost });
  });

  it('on a native Responses upstream (sim/gpt-5-mini): function_call / function_call_output items upstream, the same answer', async () => {
    const session = randomUUID();
    const response = await openai.responses.create({
      model: 'sim/gpt-5-mini',
      input: THREE,
      tools: [{ type: 'service:web_search' } as never],
      session_id: session,
      max_tool_calls: 1,
    } as never);
    expect(response.output.filter((item) => item.type === 'web_search_call')).toHaveLength(1);
    expect(response.output_text).toContain('Zephyr');
    expect((response.usage as unknown as Record<string, any>).server_tool_use).toEqual({
      tool_calls_executed: 1,
      tool_calls_requested: 1,
      web_search_requests: 1,
    });
    expect(await generationsOf(session, 2)).toHaveLength(2);
  });

  describe('the loop stops when told', () => {
    const cases: Array<[string, Record<string, unknown>, { calls: number; searches: number }]> = [
      ['no bound: the model does its 3 searches', {}, { calls: 4, searches: 3 }],
      ['max_tool_calls 2', { max_tool_calls: 2 }, { calls: 3, searches: 2 }],
      ['max_tool_calls 0: no server tool runs', { max_tool_calls: 0 }, { calls: 1, searches: 0 }],
      ['step_count_is 1', { stop_server_tools_when: [{ type: 'step_count_is', step_count: 1 }] }, { calls: 2, searches: 1 }],
      ['step_count_is 2', { stop_server_tools_when: [{ type: 'step_count_is', step_count: 2 }] }, { calls: 3, searches: 2 }],
      [
        'has_tool_call web_search',
        { stop_server_tools_when: [{ type: 'has_tool_call', tool_name: 'web_search' }] },
        { calls: 2, searches: 1 },
      ],
      [
        'has_tool_call of another tool: no effect',
        { stop_server_tools_when: [{ type: 'has_tool_call', tool_name: 'web_fetch' }] },
        { calls: 4, searches: 3 },
      ],
      [
        'max_cost below one search',
        { stop_server_tools_when: [{ type: 'max_cost', max_cost_in_dollars: 0.001 }] },
        { calls: 2, searches: 1 },
      ],
      [
        'max_cost above two searches',
        { stop_server_tools_when: [{ type: 'max_cost', max_cost_in_dollars: 0.0101 }] },
        { calls: 4, searches: 3 },
      ],
      ['max_tokens_used 1', { stop_server_tools_when: [{ type: 'max_tokens_used', max_tokens: 1 }] }, { calls: 2, searches: 1 }],
      [
        'finish_reason_is tool_calls',
        { stop_server_tools_when: [{ type: 'finish_reason_is', reason: 'tool_calls' }] },
        { calls: 2, searches: 1 },
      ],
      [
        'OR of conditions, overriding max_tool_calls',
        {
          max_tool_calls: 1,
          stop_server_tools_when: [
            { type: 'finish_reason_is', reason: 'length' },
            { type: 'step_count_is', step_count: 3 },
          ],
        },
        { calls: 4, searches: 3 },
      ],
    ];

    it.each(cases)('chat, %s', async (_name, fields, expected) => {
      const session = randomUUID();
      const completion = await openai.chat.completions.create({
        model: 'sim/gpt-4o-mini',
        messages: [{ role: 'user', content: THREE }],
        tools: [{ type: 'service:web_search' } as never],
        session_id: session,
        ...fields,
      } as never);
      const usage = completion.usage as unknown as Record<string, any>;
      // The last turn is an answer, never a tool call the client cannot run.
      expect(completion.choices[0]!.message.tool_calls).toBeUndefined();
      expect(completion.choices[0]!.message.content).toBeTruthy();
      expect(usage.server_tool_use).toEqual({
        tool_calls_executed: expected.searches,
        tool_calls_requested: expected.searches,
        web_search_requests: expected.searches,
      });
      const rows = await generationsOf(session, expected.calls);
      expect(rows).toHaveLength(expected.calls);
      expectSumsMatch(rows, { prompt: usage.prompt_tokens, completion: usage.completion_tokens, cost: usage.cost });
    });

    it('responses, step_count_is 2: two web_search_call items, then the answer', async () => {
      const session = randomUUID();
      const response = await openai.responses.create({
        model: 'sim/gpt-4o-mini',
        input: THREE,
        tools: [{ type: 'service:web_search' } as never],
        session_id: session,
        stop_server_tools_when: [{ type: 'step_count_is', step_count: 2 }],
      } as never);
      expect(response.output.map((item) => item.type)).toEqual(['web_search_call', 'web_search_call', 'message']);
      expect((response.usage as unknown as Record<string, any>).server_tool_use.web_search_requests).toBe(2);
      expect(await generationsOf(session, 3)).toHaveLength(3);
    });
  });

  it('a client function tool call in the turn ends the loop and goes back to the client', async () => {
    const session = randomUUID();
    const completion = await openai.chat.completions.create({
      model: 'sim/gpt-4o-mini',
      messages: [{ role: 'user', content: 'What is the order status of 42?' }],
      tools: [
        { type: 'service:web_search' } as never,
        { type: 'function', function: { name: 'order_status', parameters: { type: 'object', properties: { id: { type: 'string' } } } } },
      ],
      session_id: session,
    } as never);
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
    expect(
      completion.choices[0]!.message.tool_calls!.map((toolCall) => (toolCall as { function: { name: string } }).function.name),
    ).toEqual(['order_status']);
    expect((completion.usage as unknown as Record<string, any>).server_tool_use).toEqual({
      tool_calls_executed: 0,
      tool_calls_requested: 0,
      web_search_requests: 0,
    });
    expect(await generationsOf(session, 1)).toHaveLength(1);
  });

  it('streams: chat deltas carry the cited answer and the usage chunk the sum; responses streams web_search_call items', async () => {
    const session = randomUUID();
    const stream = await openai.chat.completions.create({
      model: 'sim/gpt-4o-mini',
      messages: [{ role: 'user', content: QUESTION }],
      tools: [{ type: 'service:web_search' } as never],
      stream: true,
      stream_options: { include_usage: true },
      session_id: session,
    } as never);
    let text = '';
    let usage: Record<string, any> | undefined;
    let finish: string | null = null;
    const annotations: unknown[] = [];
    const ids = new Set<string>();
    const steps: unknown[] = [];
    for await (const chunk of stream as unknown as AsyncIterable<OpenAI.Chat.ChatCompletionChunk>) {
      ids.add(chunk.id);
      const toolCalls = (chunk as { server_tool_calls?: unknown[] }).server_tool_calls;
      if (toolCalls) steps.push(toolCalls);
      const choice = chunk.choices[0];
      if (choice?.delta.content) text += choice.delta.content;
      if (choice?.finish_reason) finish = choice.finish_reason;
      annotations.push(...((choice?.delta as { annotations?: unknown[] } | undefined)?.annotations ?? []));
      if (chunk.usage) usage = chunk.usage as unknown as Record<string, any>;
    }
    expect(ids.size).toBe(1);
    // One metadata chunk (no choices) for the step the gateway searched in.
    expect(steps).toEqual([
      [{ id: expect.any(String), type: 'web_search', status: 'completed', query: 'the capital of Atlantis', results: 2 }],
    ]);
    expect(text).toContain('Poseidonia');
    expect(finish).toBe('stop');
    expect(annotations.length).toBeGreaterThan(0);
    expect(usage!.server_tool_use).toEqual({ tool_calls_executed: 1, tool_calls_requested: 1, web_search_requests: 1 });
    const rows = await generationsOf(session, 2);
    expect(rows).toHaveLength(2);
    expectSumsMatch(rows, { prompt: usage!.prompt_tokens, completion: usage!.completion_tokens, cost: usage!.cost });

    const events: string[] = [];
    let completed: OpenAI.Responses.Response | undefined;
    const responses = await openai.responses.create({
      model: 'sim/gpt-4o-mini',
      input: QUESTION,
      tools: [{ type: 'service:web_search' } as never],
      stream: true,
    } as never);
    for await (const event of responses as unknown as AsyncIterable<OpenAI.Responses.ResponseStreamEvent>) {
      events.push(event.type);
      if (event.type === 'response.completed') completed = event.response;
    }
    expect(events).toEqual(
      expect.arrayContaining([
        'response.web_search_call.searching',
        'response.web_search_call.completed',
        'response.output_text.delta',
        'response.completed',
      ]),
    );
    expect(events.indexOf('response.web_search_call.completed')).toBeLessThan(events.indexOf('response.output_text.delta'));
    expect(completed!.output.map((item) => item.type)).toEqual(['web_search_call', 'message']);
    expect(completed!.output_text).toContain('Poseidonia');
  });

  it.each(['sim/claude-sonnet', 'sim/gpt-5-mini'])('streams on %s too (tool calls assembled from its stream events)', async (model) => {
    const session = randomUUID();
    const stream = await openai.chat.completions.create({
      model,
      messages: [{ role: 'user', content: THREE }],
      tools: [{ type: 'service:web_search' } as never],
      stream: true,
      stream_options: { include_usage: true },
      session_id: session,
      max_tool_calls: 2,
    } as never);
    let text = '';
    let usage: Record<string, any> | undefined;
    for await (const chunk of stream as unknown as AsyncIterable<OpenAI.Chat.ChatCompletionChunk>) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage as unknown as Record<string, any>;
    }
    expect(text).toContain('Zephyr');
    expect(usage!.server_tool_use).toEqual({ tool_calls_executed: 2, tool_calls_requested: 2, web_search_requests: 2 });
    expect(await generationsOf(session, 3)).toHaveLength(3);

    let completed: OpenAI.Responses.Response | undefined;
    const responses = await openai.responses.create({
      model,
      input: THREE,
      tools: [{ type: 'service:web_search' } as never],
      stream: true,
      max_tool_calls: 2,
    } as never);
    for await (const event of responses as unknown as AsyncIterable<OpenAI.Responses.ResponseStreamEvent>)
      if (event.type === 'response.completed') completed = event.response;
    expect(completed!.output.map((item) => item.type)).toEqual(['web_search_call', 'web_search_call', 'message']);
  });

  it('streams with debug: each model call of the loop echoes its upstream body before its chunks and reports its timings after', async () => {
    const response = await fetch(`${stack.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'sim/gpt-4o-mini',
        stream: true,
        debug: { echo_upstream_body: true },
        messages: [{ role: 'user', content: QUESTION }],
        tools: [{ type: 'service:web_search' }],
      }),
    });
    expect(response.status).toBe(200);
    const chunks = (await response.text())
      .split('\n\n')
      .filter((event) => event.startsWith('data: {'))
      .map((event) => JSON.parse(event.slice('data: '.length)));
    const debug = chunks.filter((chunk) => chunk.debug).map((chunk) => chunk.debug);
    expect(debug.map((entry) => [entry.step, entry.echo_upstream_body ? 'echo' : 'timings'])).toEqual([
      [1, 'echo'],
      [1, 'timings'],
      [2, 'echo'],
      [2, 'timings'],
    ]);
    // The second call carries the first call's tool call and the search result.
    expect(debug[2].echo_upstream_body.messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(debug[1].timings.map((entry: { event: string }) => entry.event)).toContain('upstream_body_ended');
  });

  it('web_fetch reads a page as text, and refuses private addresses, also after a redirect', async () => {
    const page = `${stack.searchSimulatorUrl}/pages/zephyr-language`;
    const fetched = await openai.chat.completions.create({
      model: 'sim/gpt-4o-mini',
      messages: [{ role: 'user', content: `Please fetch ${page} and summarise it.` }],
      tools: [{ type: 'service:web_fetch' } as never],
    } as never);
    expect(fetched.choices[0]!.message.content).toContain('Zephyr is a fictional programming language');
    expect(fetched.choices[0]!.message.content).not.toContain('analytics');
    expect((fetched.usage as unknown as Record<string, any>).server_tool_use).toEqual({
      tool_calls_executed: 1,
      tool_calls_requested: 1,
      web_search_requests: 0,
    });

    const gatewayHealth = new URL('/health', stack.baseUrl).toString();
    for (const url of [
      'http://127.0.0.1:5432/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]/',
      `${stack.searchSimulatorUrl}/redirect?to=${encodeURIComponent(gatewayHealth)}`,
    ]) {
      const refused = await openai.chat.completions.create({
        model: 'sim/gpt-4o-mini',
        messages: [{ role: 'user', content: `Please fetch ${url} now.` }],
        tools: [{ type: 'service:web_fetch' } as never],
      } as never);
      expect(refused.choices[0]!.message.content, url).toMatch(/The tool failed: .*private, loopback or link-local/);
      expect((refused.usage as unknown as Record<string, any>).server_tool_use, url).toEqual({
        tool_calls_executed: 0,
        tool_calls_requested: 1,
        web_search_requests: 0,
      });
    }
  });

  it('never silently ignores: unknown server tools, bad bounds and stop conditions are 400s that name them, on both endpoints', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ tools: [{ type: 'service:code_interpreter' }] }, /service:code_interpreter is not supported/],
      [{ tools: [{ type: 'service:web_search' }], max_tool_calls: 31 }, /max_tool_calls/],
      [{ tools: [{ type: 'service:web_search' }], stop_server_tools_when: [{ type: 'when_bored' }] }, /unknown stop condition when_bored/],
      [{ tools: [{ type: 'service:web_search' }], stop_server_tools_when: [{ type: 'max_cost' }] }, /max_cost needs max_cost_in_dollars/],
      [{ tools: [{ type: 'service:web_search', engine: 'google' }] }, /does not take engine/],
    ];
    for (const [fields, message] of cases) {
      for (const [path, body] of [
        ['/chat/completions', { model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], ...fields }],
        ['/responses', { model: 'sim/gpt-4o-mini', input: 'Hi', ...fields }],
      ] as const) {
        const result = await call(path, { body });
        const label = `${path} ${JSON.stringify(fields).slice(0, 80)}`;
        expect(result.status, label).toBe(400);
        const error = envelopeOf(result);
        expect(error.message, label).toMatch(message);
        expect(error.metadata, label).toMatchObject({ error_type: 'invalid_request' });
      }
    }
  });
});
