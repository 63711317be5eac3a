import OpenAI from 'openai';
import type { ResponseStreamEvent, Tool } from 'openai/resources/responses/responses';
import { describe, expect, it } from 'vitest';
import { call, envelopeOf, stack } from './e2e-helpers.js';

/**
 * The tool kinds of OpenAI's Responses API that clients (Codex, the Agents SDK) send, through
 * the gateway with the `openai` client. The simulated model calls the tool a prompt
 * names (`call <tool> with <JSON>`, tools/provider-simulator tool-steering.ts).
 */
const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const parameters = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false };
const tools: Tool[] = [
  { type: 'function', name: 'exec_command', parameters, strict: false },
  {
    type: 'namespace',
    name: 'crm',
    description: 'Customer records',
    tools: [
      { type: 'function', name: 'lookup', description: 'Find a customer', parameters },
      { type: 'custom', name: 'note', description: 'Write a note about a customer' },
    ],
  },
  { type: 'local_shell' },
  { type: 'web_search', external_web_access: false },
];
/** Both ways out of the Responses front door: chat completions upstream, and OpenAI's Responses API upstream. */
const MODELS = ['sim/gpt-4o-mini', 'sim/gpt-5-mini'];

describe('Responses: namespace, custom and local_shell tools, as Codex sends them', () => {
  it.each(MODELS)('%s: a namespaced function call comes back with its name and namespace, and its output is taken back', async (model) => {
    const response = await openai.responses.create({ model, tools, input: 'call crm__lookup with {"id": "c-42"}' });
    const fc = response.output.find((item) => item.type === 'function_call')!;
    expect(fc).toMatchObject({ type: 'function_call', name: 'lookup', namespace: 'crm', arguments: '{"id":"c-42"}' });

    const next = await openai.responses.create({
      model,
      tools,
      input: [
        { role: 'user', content: 'call crm__lookup with {"id": "c-42"}' },
        fc,
        { type: 'function_call_output', call_id: fc.call_id, output: 'Ada Lovelace, London' },
      ],
    });
    expect(next.output_text).toContain('Ada Lovelace, London');
  });

  it('streamed: the namespaced call in output_item events and the final response; custom calls with their input events', async () => {
    const stream = await openai.responses.create({
      model: 'sim/gpt-4o-mini',
      tools,
      input: 'call crm__note with {"input": "prefers email"}',
      stream: true,
    });
    const events: ResponseStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    const done = events.find((event) => event.type === 'response.custom_tool_call_input.done');
    expect(done).toMatchObject({ input: 'prefers email' });
    const completed = events.at(-1) as Extract<ResponseStreamEvent, { type: 'response.completed' }>;
    expect(completed.type).toBe('response.completed');
    expect(completed.response.output).toMatchObject([{ type: 'custom_tool_call', name: 'note', namespace: 'crm', input: 'prefers email' }]);

    const namespaced = await openai.responses.create({
      model: 'sim/gpt-4o-mini',
      tools,
      input: 'call crm__lookup with {"id": "7"}',
      stream: true,
    });
    const added: unknown[] = [];
    for await (const event of namespaced) if (event.type === 'response.output_item.added') added.push(event.item);
    expect(added).toMatchObject([{ type: 'function_call', name: 'lookup', namespace: 'crm' }]);
  });

  it('local_shell: the call is a local_shell_call with the command; its output goes back as local_shell_call_output', async () => {
    const response = await openai.responses.create({
      model: 'sim/gpt-4o-mini',
      tools,
      input: 'call local_shell with {"command": ["cat", "note.txt"], "working_directory": "/work"}',
    });
    const shell = response.output.find((item) => item.type === 'local_shell_call')!;
    expect(shell).toMatchObject({ action: { type: 'exec', command: ['cat', 'note.txt'], env: {}, working_directory: '/work' } });
    const next = await openai.responses.create({
      model: 'sim/gpt-4o-mini',
      tools,
      input: [
        { role: 'user', content: 'What does note.txt say?' },
        shell,
        { type: 'local_shell_call_output', id: shell.call_id, output: 'buy milk' },
      ],
    });
    expect(next.output_text).toContain('buy milk');
  });

  it('web_search (and web_search_preview) run as the service web search: web_search_call items and a cited answer', async () => {
    for (const type of ['web_search', 'web_search_preview'] as const) {
      const response = await openai.responses.create({
        model: 'sim/gpt-4o-mini',
        tools: [{ type }],
        input: 'Search the web for the capital of Atlantis.',
      });
      expect(response.output.map((item) => item.type)).toEqual(['web_search_call', 'message']);
      expect(response.output_text).toContain(`${stack.searchSimulatorUrl}/pages/atlantis-capital`);
    }
  });

  it('every other tool kind is a 400 that names it', async () => {
    for (const type of ['file_search', 'computer_use_preview', 'mcp', 'code_interpreter', 'image_generation', 'shell', 'apply_patch']) {
      const result = await call('/responses', { body: { model: 'sim/gpt-4o-mini', input: 'Hi', tools: [{ type }] } });
      expect(result.status).toBe(400);
      expect(envelopeOf(result)).toMatchObject({ message: expect.stringContaining(`tools of type ${type} are not supported`) });
    }
  });
});

describe('openrouter:web_search, the OpenRouter spelling of the server web search', () => {
  it('runs on chat completions and on responses', async () => {
    const chat = await call('/chat/completions', {
      body: {
        model: 'sim/gpt-4o-mini',
        messages: [{ role: 'user', content: 'Search the web for the capital of Atlantis.' }],
        tools: [{ type: 'openrouter:web_search' }],
      },
    });
    expect(chat.status).toBe(200);
    expect((chat.body as { usage: { server_tool_use: unknown } }).usage.server_tool_use).toMatchObject({ web_search_requests: 1 });
    const response = await openai.responses.create({
      model: 'sim/gpt-4o-mini',
      tools: [{ type: 'openrouter:web_search' } as never],
      input: 'Search the web for the capital of Atlantis.',
    });
    expect(response.output[0]?.type).toBe('web_search_call');
  });
});
