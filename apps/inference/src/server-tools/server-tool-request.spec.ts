import { GatewayError } from '@gw/errors';
import { describe, expect, it } from 'vitest';
import { extractServerTools } from './server-tool-request.js';

function refusal(body: Record<string, unknown>): GatewayError {
  try {
    extractServerTools(body);
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected a 400');
}

describe('server tools in a request', () => {
  const fn = { type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } };

  it('presents service:web_search and service:web_fetch as function tools, keeps client tools, and keeps the bounds out of the body', () => {
    const { body, plan } = extractServerTools({
      messages: [],
      tools: [fn, { type: 'service:web_search', max_results: 3 }, { type: 'service:web_fetch' }],
      max_tool_calls: 4,
    });
    expect(body.max_tool_calls).toBeUndefined();
    expect((body.tools as Array<{ type: string; function: { name: string } }>).map((tool) => [tool.type, tool.function.name])).toEqual([
      ['function', 'lookup'],
      ['function', 'web_search'],
      ['function', 'web_fetch'],
    ]);
    expect(plan?.maxToolCalls).toBe(4);
    expect([...plan!.tools.entries()]).toEqual([
      ['web_search', { kind: 'web_search', maxResults: 3 }],
      ['web_fetch', { kind: 'web_fetch' }],
    ]);
  });

  it('takes a web search domain filter (host names, scheme and slash dropped) and an approximate location', () => {
    const { plan } = extractServerTools({
      messages: [],
      tools: [
        {
          type: 'service:web_search',
          allowed_domains: ['https://Docs.Example.com/', 'example.org'],
          user_location: { type: 'approximate', country: 'gb', city: 'London', region: null },
        },
      ],
    });
    expect(plan!.tools.get('web_search')).toEqual({
      kind: 'web_search',
      search: { allowedDomains: ['docs.example.com', 'example.org'], location: { country: 'gb', city: 'London' } },
    });
    expect(refusal({ tools: [{ type: 'service:web_search', allowed_domains: ['not a domain'] }] }).message).toMatch(
      /allowed_domains\[0\]: "not a domain" is not a domain/,
    );
    expect(refusal({ tools: [{ type: 'service:web_search', user_location: { country: 'Britain' } }] }).message).toMatch(
      /user_location\.country must be a two-letter/,
    );
    expect(refusal({ tools: [{ type: 'service:web_search', user_location: { street: 'x' } }] }).message).toMatch(/does not take street/);
  });

  it('has no plan without server tools (and still never sends the bounds upstream)', () => {
    const { body, plan } = extractServerTools({
      messages: [],
      tools: [fn],
      stop_server_tools_when: [{ type: 'step_count_is', step_count: 2 }],
    });
    expect(plan).toBeUndefined();
    expect(body).toEqual({ messages: [], tools: [fn] });
  });

  it('defaults to 30 steps and takes the five stop conditions', () => {
    const stops = [
      { type: 'step_count_is', step_count: 2 },
      { type: 'max_cost', max_cost_in_dollars: 0.01 },
      { type: 'has_tool_call', tool_name: 'web_search' },
      { type: 'max_tokens_used', max_tokens: 1000 },
      { type: 'finish_reason_is', reason: 'tool_calls' },
    ];
    const { plan } = extractServerTools({ tools: [{ type: 'service:web_search' }], stop_server_tools_when: stops });
    expect(plan?.maxToolCalls).toBe(30);
    expect(plan?.stopWhen).toEqual(stops);
  });

  it('refuses, naming it, what it cannot do', () => {
    expect(refusal({ tools: [{ type: 'service:code_interpreter' }] })).toMatchObject({
      status: 400,
      metadata: { reason: 'unsupported_tool', tool: 'service:code_interpreter' },
    });
    expect(refusal({ tools: [{ type: 'service:code_interpreter' }] }).message).toMatch(/service:code_interpreter is not supported/);
    expect(refusal({ tools: [{ type: 'service:web_search', engine: 'exa' }] }).message).toMatch(/does not take engine/);
    expect(refusal({ tools: [{ type: 'service:web_search' }, { type: 'function', function: { name: 'web_search' } }] }).message).toMatch(
      /function tool named web_search/,
    );
    expect(refusal({ tools: [{ type: 'service:web_search', max_results: 50 }] }).message).toMatch(/max_results/);
    expect(refusal({ max_tool_calls: 31 }).message).toMatch(/max_tool_calls/);
    expect(refusal({ max_tool_calls: -1 }).message).toMatch(/max_tool_calls/);
    expect(refusal({ stop_server_tools_when: [] }).message).toMatch(/at least one/);
    expect(refusal({ stop_server_tools_when: [{ type: 'when_bored' }] }).message).toMatch(/unknown stop condition when_bored/);
    expect(refusal({ stop_server_tools_when: [{ type: 'step_count_is' }] }).message).toMatch(/step_count_is needs step_count/);
    expect(refusal({ stop_server_tools_when: [{ type: 'max_cost', max_cost_in_dollars: -1 }] }).message).toMatch(/max_cost_in_dollars/);
  });
});
