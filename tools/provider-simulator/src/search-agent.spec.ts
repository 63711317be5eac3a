import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { citingReply, searchQueryOf, serverToolCall } from './search-agent.ts';
import { startSimulator, type RunningSimulator } from './index.ts';

const searchResult = (query: string) =>
  JSON.stringify({
    query,
    results: [
      { title: 'T1', url: 'http://s/1', snippet: 'one.' },
      { title: 'T2', url: 'http://s/2', snippet: 'two.' },
      { title: 'T3', url: 'http://s/3', snippet: 'three.' },
    ],
  });

describe('search agent', () => {
  it('searches when asked and the tool is offered, as many times as asked, then fetches', () => {
    expect(searchQueryOf('Search the web for the capital of Atlantis.')).toBe('the capital of Atlantis');
    expect(serverToolCall(['web_search'], 'Hello there', [])).toBeUndefined();
    expect(serverToolCall([], 'search for x', [])).toBeUndefined();
    expect(serverToolCall(['web_search'], 'search for x', [])).toEqual({ name: 'web_search', input: { query: 'x' }, turn: 0 });
    expect(serverToolCall(['web_search'], 'search for x', [searchResult('x')])).toBeUndefined();
    expect(serverToolCall(['web_search'], 'do 2 searches: search for x', [searchResult('x')])).toEqual({
      name: 'web_search',
      input: { query: 'x (2)' },
      turn: 1,
    });
    expect(serverToolCall(['web_search', 'web_fetch'], 'search for x and fetch http://a/b.', [searchResult('x')])).toEqual({
      name: 'web_fetch',
      input: { url: 'http://a/b' },
      turn: 1,
    });
  });

  it('answers citing the results as Markdown links', () => {
    expect(citingReply([searchResult('x')])).toBe('According to [T1](http://s/1): one. According to [T2](http://s/2): two.');
    expect(citingReply(['plain tool output'])).toBeUndefined();
  });
});

describe('OpenAI chat strictness', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(() => sim.close());
  const post = (body: unknown) =>
    fetch(`${sim.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk' },
      body: JSON.stringify(body),
    });
  const tools = [
    { type: 'function', function: { name: 'web_search', parameters: { type: 'object', properties: { query: { type: 'string' } } } } },
  ];

  it('calls web_search, then answers citing; refuses unanswered tool calls and raw server tools', async () => {
    const first = (await (
      await post({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Search for Zephyr' }], tools })
    ).json()) as { choices: Array<{ message: { tool_calls: Array<{ id: string; function: { name: string; arguments: string } }> } }> };
    const call = first.choices[0]!.message.tool_calls[0]!;
    expect(call.function).toEqual({ name: 'web_search', arguments: '{"query":"Zephyr"}' });
    const assistant = { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: call.function }] };
    const second = (await (
      await post({
        model: 'gpt-4o-mini',
        messages: [
          { role: 'user', content: 'Search for Zephyr' },
          assistant,
          { role: 'tool', tool_call_id: call.id, content: searchResult('Zephyr') },
        ],
        tools,
      })
    ).json()) as { choices: Array<{ message: { content: string } }> };
    expect(second.choices[0]!.message.content).toContain('[T1](http://s/1)');
    const unanswered = await post({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'x' }, assistant, { role: 'user', content: 'y' }],
      tools,
    });
    expect(unanswered.status).toBe(400);
    expect(((await unanswered.json()) as { error: { message: string } }).error.message).toContain(call.id);
    expect(
      (await post({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }], tools: [{ type: 'service:web_search' }] })).status,
    ).toBe(400);
    const none = (await (
      await post({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Search for Zephyr' }], tools, tool_choice: 'none' })
    ).json()) as { choices: Array<{ finish_reason: string }> };
    expect(none.choices[0]!.finish_reason).toBe('stop');
  });
});
