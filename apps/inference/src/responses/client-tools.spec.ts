import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { translateResponsesRequest } from './responses-request.js';
import { ResponsesEventWriter } from './responses-event-writer.js';
import { echoedConfiguration, outputItemsOf } from './responses-view.js';
import type { NormalizedCompletion } from '../providers/provider-adapter.js';

const parameters = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
const CODEX_LIKE_TOOLS = [
  { type: 'function', name: 'exec_command', parameters },
  {
    type: 'namespace',
    name: 'crm',
    description: 'Customer records',
    tools: [
      { type: 'function', name: 'lookup', description: 'Find a customer', parameters, strict: false },
      { type: 'custom', name: 'note', description: 'Write a note' },
    ],
  },
  { type: 'custom', name: 'apply_patch', description: 'Apply a patch' },
  { type: 'local_shell' },
  { type: 'web_search', external_web_access: false, search_context_size: 'high' },
];

const translate = (body: Record<string, unknown>) => translateResponsesRequest({ model: 'sim/gpt-4o-mini', input: 'Hi', ...body }, 'ws-1');

function refusal(body: Record<string, unknown>): GatewayError {
  try {
    translate(body);
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a 400');
}

function completionCalling(calls: Array<[string, string]>): NormalizedCompletion {
  return {
    id: 'gen-1',
    model: 'sim/gpt-4o-mini',
    choices: [
      {
        index: 0,
        finish_reason: 'tool_calls',
        message: {
          role: 'assistant',
          content: null,
          tool_calls: calls.map(([name, args], index) => ({ id: `call_${index}`, type: 'function', function: { name, arguments: args } })),
        },
      },
    ],
    usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0, reasoningTokens: 0, estimated: false },
  } as unknown as NormalizedCompletion;
}

describe("the client's tools of a Responses request", () => {
  it("sends a grammar tool as chat's custom tool; its call's arguments are the raw input, both ways", () => {
    const grammar = { type: 'grammar', syntax: 'regex', definition: '(red|green)' };
    const { chatBody, options } = translate({
      tools: [{ type: 'custom', name: 'colour', description: 'Set it', format: grammar }],
      tool_choice: { type: 'custom', name: 'colour' },
      input: [
        { role: 'user', content: 'Set it' },
        { type: 'custom_tool_call', call_id: 'c1', name: 'colour', input: 'red' },
        { type: 'custom_tool_call_output', call_id: 'c1', output: 'done' },
      ],
    });
    expect(chatBody.tools).toEqual([
      {
        type: 'custom',
        custom: {
          name: 'colour',
          description: 'Set it',
          format: { type: 'grammar', grammar: { syntax: 'regex', definition: '(red|green)' } },
        },
      },
    ]);
    expect(chatBody.tool_choice).toEqual({ type: 'custom', custom: { name: 'colour' } });
    expect((chatBody.messages as Array<Record<string, any>>)[1]!.tool_calls).toEqual([
      { id: 'c1', type: 'function', function: { name: 'colour', arguments: 'red' } },
    ]);
    expect(outputItemsOf(completionCalling([['colour', 'green']]), options)).toMatchObject([
      { type: 'custom_tool_call', name: 'colour', input: 'green' },
    ]);
  });

  it('passes web_search filters and location to the service web search', () => {
    const location = { type: 'approximate', country: 'GB', city: 'London' };
    const { chatBody } = translate({ tools: [{ type: 'web_search', filters: { allowed_domains: ['a.com'] }, user_location: location }] });
    expect(chatBody.tools).toEqual([{ type: 'service:web_search', allowed_domains: ['a.com'], user_location: location }]);
  });

  it('flattens namespaces, turns custom and local_shell tools into functions and web_search into the server search', () => {
    const { chatBody } = translate({ tools: CODEX_LIKE_TOOLS });
    const tools = chatBody.tools as Array<Record<string, any>>;
    expect(tools.map((tool) => tool.function?.name ?? tool.type)).toEqual([
      'exec_command',
      'crm__lookup',
      'crm__note',
      'apply_patch',
      'local_shell',
      'service:web_search',
    ]);
    expect(tools[1]!.function).toEqual({ name: 'crm__lookup', description: 'Find a customer', parameters, strict: false });
    expect(tools[2]!.function.parameters).toMatchObject({ properties: { input: { type: 'string' } }, required: ['input'] });
    expect(tools[4]!.function.parameters).toMatchObject({ properties: { command: { type: 'array' } }, required: ['command'] });
    expect(tools[5]).toEqual({ type: 'service:web_search', max_results: 10 });
  });

  it('gives the calls back under the names and item kinds the client offered', () => {
    const { options } = translate({ tools: CODEX_LIKE_TOOLS });
    const items = outputItemsOf(
      completionCalling([
        ['exec_command', '{"id":"1"}'],
        ['crm__lookup', '{"id":"2"}'],
        ['crm__note', '{"input":"call back"}'],
        ['apply_patch', '{"input":"*** Begin Patch"}'],
        ['local_shell', '{"command":["ls","-la"],"working_directory":"/tmp"}'],
      ]),
      options,
    );
    expect(items.map((item) => ({ ...item, id: undefined }))).toEqual([
      { type: 'function_call', id: undefined, call_id: 'call_0', name: 'exec_command', arguments: '{"id":"1"}', status: 'completed' },
      {
        type: 'function_call',
        id: undefined,
        call_id: 'call_1',
        name: 'lookup',
        namespace: 'crm',
        arguments: '{"id":"2"}',
        status: 'completed',
      },
      {
        type: 'custom_tool_call',
        id: undefined,
        call_id: 'call_2',
        name: 'note',
        namespace: 'crm',
        input: 'call back',
        status: 'completed',
      },
      { type: 'custom_tool_call', id: undefined, call_id: 'call_3', name: 'apply_patch', input: '*** Begin Patch', status: 'completed' },
      {
        type: 'local_shell_call',
        id: undefined,
        call_id: 'call_4',
        action: { type: 'exec', command: ['ls', '-la'], env: {}, working_directory: '/tmp' },
        status: 'completed',
      },
    ]);
  });

  it('takes those calls and their outputs back as input: the model sees its own calls again', () => {
    const { chatBody } = translate({
      tools: CODEX_LIKE_TOOLS,
      input: [
        { role: 'user', content: 'Go' },
        { type: 'function_call', call_id: 'c1', name: 'lookup', namespace: 'crm', arguments: '{"id":"2"}' },
        { type: 'custom_tool_call', call_id: 'c2', name: 'apply_patch', input: 'patch text' },
        { type: 'local_shell_call', id: 'ls_1', call_id: 'c3', status: 'completed', action: { type: 'exec', command: ['ls'], env: {} } },
        { type: 'function_call_output', call_id: 'c1', output: 'found' },
        { type: 'custom_tool_call_output', call_id: 'c2', output: 'applied' },
        { type: 'local_shell_call_output', id: 'c3', output: 'a.txt' },
      ],
    });
    expect(chatBody.messages).toEqual([
      { role: 'user', content: 'Go' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'crm__lookup', arguments: '{"id":"2"}' } },
          { id: 'c2', type: 'function', function: { name: 'apply_patch', arguments: '{"input":"patch text"}' } },
          { id: 'c3', type: 'function', function: { name: 'local_shell', arguments: '{"command":["ls"],"env":{}}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'found' },
      { role: 'tool', tool_call_id: 'c2', content: 'applied' },
      { role: 'tool', tool_call_id: 'c3', content: 'a.txt' },
    ]);
  });

  it('streams a namespaced call as a function_call with its namespace, a custom call with its input events', () => {
    const { options } = translate({ tools: CODEX_LIKE_TOOLS });
    const frames: string[] = [];
    const writer = new ResponsesEventWriter(
      { id: 'resp_1', createdAt: 1, model: 'sim/gpt-4o-mini', echo: echoedConfiguration({}) },
      options,
      (frame) => frames.push(frame),
    );
    writer.start();
    const fragment = (index: number, id: string | undefined, name: string | undefined, args: string) => ({
      type: 'chunk' as const,
      choices: [
        {
          index: 0,
          delta: {
            tool_calls: [{ index, ...(id ? { id, type: 'function' } : {}), function: { ...(name ? { name } : {}), arguments: args } }],
          },
          finish_reason: null,
          native_finish_reason: null,
        },
      ],
    });
    writer.add(fragment(0, 'call_a', 'crm__lookup', '{"id":'));
    writer.add(fragment(0, undefined, undefined, '"7"}'));
    writer.add(fragment(1, 'call_b', 'apply_patch', '{"input":"x'));
    writer.add(fragment(1, undefined, undefined, 'y"}'));
    const response = writer.finish(null);
    const events = frames.map((frame) => JSON.parse(frame.split('\n')[1]!.slice(6)) as Record<string, any>);
    const types = events.map((event) => event.type);
    expect(types.filter((type) => type.includes('arguments') || type.includes('custom'))).toEqual([
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
    ]);
    expect(events.find((event) => event.type === 'response.output_item.added')?.item).toMatchObject({ name: 'lookup', namespace: 'crm' });
    expect(events.find((event) => event.type === 'response.custom_tool_call_input.done')).toMatchObject({ input: 'xy' });
    expect(response.output).toMatchObject([
      { type: 'function_call', name: 'lookup', namespace: 'crm', arguments: '{"id":"7"}' },
      { type: 'custom_tool_call', name: 'apply_patch', input: 'xy' },
    ]);
  });

  it('refuses, naming it, what it cannot serve', () => {
    for (const type of [
      'file_search',
      'computer_use_preview',
      'mcp',
      'code_interpreter',
      'image_generation',
      'shell',
      'tool_search',
      'apply_patch',
    ])
      expect(refusal({ tools: [{ type }] })).toMatchObject({
        status: 400,
        message: expect.stringContaining(`tools of type ${type} are not supported`),
      });
    expect(
      refusal({ tools: [{ type: 'custom', name: 'p', format: { type: 'grammar', syntax: 'peg', definition: 'x' } }] }).message,
    ).toMatch(/tools\[0\]\.format\.syntax must be lark or regex/);
    expect(refusal({ tools: [{ type: 'web_search', filters: 'a.com' }] }).message).toMatch(/filters must be an object/);
    expect(refusal({ tools: [{ type: 'namespace', name: 'crm', tools: [{ type: 'web_search' }] }] }).message).toMatch(
      /tools\[0\]\.tools\[0\]: a namespace holds function and custom tools/,
    );
    expect(refusal({ tools: [{ type: 'function', name: 'crm__lookup', parameters }, CODEX_LIKE_TOOLS[1]] }).message).toMatch(
      /tools\[1\]\.tools\[0\]: a tool named crm__lookup is given twice/,
    );
    expect(
      refusal({ tools: [{ type: 'namespace', name: 'n'.repeat(60), tools: [{ type: 'function', name: 'lookup' }] }] }).message,
    ).toMatch(/must be 1 to 64 letters/);
  });
});
