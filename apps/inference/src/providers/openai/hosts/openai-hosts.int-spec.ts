import { describe, expect, it } from 'vitest';
import type { RoutableEndpoint } from '../../../catalog/catalog.service.js';
import { GATED_PARAMETERS } from '../../../routing/parameter-support.js';
import { simulatorUpstream } from '../../../testing/spec-helpers.js';
import { UpstreamFailure } from '../../../upstream/upstream-failure.js';
import { CONFORMANCE_PRICING } from '../../conformance/conformance-cases.js';
import type { NormalizedCompletion, StreamEvent } from '../../provider-adapter.js';
import { OpenAiAdapter } from '../openai.adapter.js';
import type { OpenAiHost } from './openai-hosts.js';

const USER = { role: 'user', content: 'Hello there' };
const WEATHER = {
  type: 'function',
  function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } },
};

/**
 * Each host's own quirks, beyond the shared conformance table: a body the host's simulator
 * refuses as sent (checked first, so the case cannot pass by a lenient simulator) answers once
 * the adapter applies the host's profile.
 */
describe('OpenAI-compatible hosts: each quirk', () => {
  const sim = simulatorUpstream();
  const adapter = () => new OpenAiAdapter(sim.upstream);
  const endpoint = (host: OpenAiHost, model: string, extra: Partial<RoutableEndpoint['provider']> = {}): RoutableEndpoint => ({
    provider: {
      id: `sim-${host}`,
      name: host,
      format: 'openai',
      host,
      baseUrl: `${sim.simulator.url}/hosts/${host}/v1`,
      apiKey: 'sk-sim',
      ...extra,
    },
    upstreamModel: model,
    pricing: CONFORMANCE_PRICING,
    // Everything gated is declared supported, so only the host profile can keep a field out.
    supportedParameters: new Set<string>([...GATED_PARAMETERS, 'user']),
  });
  /** The body as a client would send it straight to the host: its status. */
  const rawStatus = async (host: OpenAiHost, body: Record<string, unknown>): Promise<number> =>
    (
      await fetch(`${sim.simulator.url}/hosts/${host}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk-sim', 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    ).status;
  const complete = (target: RoutableEndpoint, body: Record<string, unknown>): Promise<NormalizedCompletion> =>
    adapter().complete(target, { model: 'm', ...body }, {});
  const collect = async (target: RoutableEndpoint, body: Record<string, unknown>): Promise<StreamEvent[]> => {
    const events: StreamEvent[] = [];
    for await (const event of await adapter().stream(target, { model: 'm', stream: true, ...body }, {})) events.push(event);
    return events;
  };

  it('Groq: logprobs, logit_bias and message names (400 there) are left out', async () => {
    const body = { messages: [{ ...USER, name: 'ann' }], logprobs: true, top_logprobs: 2, logit_bias: { '50': 1 } };
    expect(await rawStatus('groq', { model: 'llama', ...body })).toBe(400);
    const answer = await complete(endpoint('groq', 'llama'), body);
    expect(answer.choices[0]!.message.content).toMatch(/^Simulated reply to: Hello there/);
  });

  it('Mistral: seed goes as random_seed, developer as system, the cap as max_tokens (422 otherwise)', async () => {
    const body = { messages: [{ role: 'developer', content: 'Be brief.' }, USER], seed: 7, max_completion_tokens: 5 };
    expect(await rawStatus('mistral', { model: 'mistral-large-latest', ...body })).toBe(422);
    const answer = await complete(endpoint('mistral', 'mistral-large-latest'), body);
    expect(answer.choices[0]!.finish_reason).toBe('length');
    expect(answer.usage.completionTokens).toBe(5);
  });

  it('Mistral: tool call ids from another provider are rewritten to 9 characters, calls and results still paired', async () => {
    const call = { id: 'call_abc_from_openai', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } };
    const messages = [
      USER,
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: call.id, content: 'Sunny' },
    ];
    expect(await rawStatus('mistral', { model: 'mistral-large-latest', messages, tools: [WEATHER] })).toBe(400);
    const answer = await complete(endpoint('mistral', 'mistral-large-latest'), { messages, tools: [WEATHER] });
    expect(answer.choices[0]!.message.content).toContain('Based on the tool result: "Sunny"');
    const fresh = await complete(endpoint('mistral', 'mistral-large-latest'), {
      messages: [USER],
      tools: [WEATHER],
      tool_choice: 'required',
    });
    expect(fresh.choices[0]!.message.tool_calls![0]!.id).toMatch(/^[a-zA-Z0-9]{9}$/);
  });

  it('DeepSeek: a thinking tool-call turn gets its reasoning back as reasoning_content, and answers reasoning_content as reasoning', async () => {
    const call = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"location":"Paris"}' } };
    const messages = [
      USER,
      { role: 'assistant', content: null, reasoning: 'The user wants weather.', tool_calls: [call] },
      { role: 'tool', tool_call_id: 'call_1', content: 'Sunny' },
    ];
    const { reasoning: _dropped, ...bare } = messages[1] as Record<string, unknown>;
    expect(await rawStatus('deepseek', { model: 'deepseek-reasoner', messages: [USER, bare, messages[2]], tools: [WEATHER] })).toBe(400);
    const answer = await complete(endpoint('deepseek', 'deepseek-reasoner;reasoning=3'), { messages, tools: [WEATHER] });
    expect(answer.choices[0]!.message.content).toContain('Sunny');
    expect((answer.choices[0]!.message as { reasoning?: string }).reasoning).toMatch(/^Thinking about how to answer/);
  });

  it('DeepSeek: a JSON schema goes as JSON mode with the schema in the prompt (json_schema is refused there)', async () => {
    const format = {
      type: 'json_schema',
      json_schema: { name: 'x', schema: { type: 'object', properties: { city: { type: 'string' } } } },
    };
    expect(await rawStatus('deepseek', { model: 'deepseek-chat', messages: [USER], response_format: format })).toBe(400);
    const answer = await complete(endpoint('deepseek', 'deepseek-chat'), { messages: [USER], response_format: format });
    expect(typeof JSON.parse(answer.choices[0]!.message.content!)).toBe('object');
  });

  it('DeepSeek: cache hits come from prompt_cache_hit_tokens', async () => {
    const answer = await complete(endpoint('deepseek', 'deepseek-chat;cached=4'), { messages: [USER] });
    expect(answer.usage.cachedTokens).toBe(4);
  });

  it('xAI: a reasoning model is not sent stop, penalties or reasoning_effort; its reasoning tokens join the completion', async () => {
    const body = { messages: [USER], stop: ['x'], presence_penalty: 0.5, frequency_penalty: 0.5, reasoning: { effort: 'high' } };
    expect(await rawStatus('xai', { model: 'grok-4', messages: [USER], stop: ['x'] })).toBe(400);
    const answer = await complete(endpoint('xai', 'grok-4;reasoning=6'), body);
    expect(answer.usage.reasoningTokens).toBe(6);
    expect(answer.usage.completionTokens).toBe(24 + 6);
    const events = await collect(endpoint('xai', 'grok-4;reasoning=6'), body);
    const usage = events.find((event) => event.type === 'usage');
    expect(usage?.type === 'usage' && usage.usage.completionTokens).toBe(30);
  });

  it('Cerebras: penalties and parallel_tool_calls left out, developer as system, a named tool_choice as required', async () => {
    const body = {
      messages: [{ role: 'developer', content: 'Be brief.' }, USER],
      presence_penalty: 0.2,
      frequency_penalty: 0.2,
      parallel_tool_calls: false,
      tools: [WEATHER],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    };
    expect(await rawStatus('cerebras', { model: 'gpt-oss-120b', ...body })).toBe(400);
    const answer = await complete(endpoint('cerebras', 'gpt-oss-120b'), body);
    expect(answer.choices[0]!.message.tool_calls?.[0]?.function.name).toBe('get_weather');
  });

  it('Perplexity: consecutive user turns merged so roles alternate; citations become annotations; searches counted', async () => {
    const messages = [USER, { role: 'user', content: 'And tomorrow?' }];
    expect(await rawStatus('perplexity', { model: 'sonar', messages })).toBe(400);
    const answer = await complete(endpoint('perplexity', 'sonar'), { messages });
    expect(answer.choices[0]!.message.annotations?.map((a) => a.type === 'url_citation' && a.url_citation.url)).toEqual([
      'https://example.com/one',
      'https://example.com/two',
    ]);
    expect(answer.usage.serverToolUse?.webSearchRequests).toBe(1);
    const events = await collect(endpoint('perplexity', 'sonar'), { messages });
    const cited = events.flatMap((event) => (event.type === 'chunk' ? event.choices.map((c) => c.delta.annotations).filter(Boolean) : []));
    expect(cited).toHaveLength(1);
  });

  it('LM Studio: json_object goes as a schema of any object; its string error bodies are read', async () => {
    expect(await rawStatus('lmstudio', { model: 'q', messages: [USER], response_format: { type: 'json_object' } })).toBe(400);
    const answer = await complete(endpoint('lmstudio', 'q', { apiKey: '' }), {
      messages: [USER],
      response_format: { type: 'json_object' },
    });
    expect(typeof JSON.parse(answer.choices[0]!.message.content!)).toBe('object');
    const failure = await complete(endpoint('lmstudio', 'q;status=400', { apiKey: '' }), { messages: [USER] }).catch(
      (error: unknown) => error,
    );
    expect((failure as UpstreamFailure).gatewayError.message).toBe('Invalid request (simulated).');
  });

  it('vLLM and OpenRouter: error bodies with a message at the top or a numeric code are read', async () => {
    for (const host of ['vllm', 'openrouter', 'llamacpp'] as const) {
      const failure = await complete(endpoint(host, 'q;status=400'), { messages: [USER] }).catch((error: unknown) => error);
      expect((failure as UpstreamFailure).gatewayError.message, host).toBe('Invalid request (simulated).');
    }
  });

  it('OpenRouter: the gateway reasoning object goes as is (its own parameter), not as reasoning_effort', async () => {
    let sent: Record<string, unknown> | undefined;
    const body = { model: 'm', stream: true, messages: [USER], reasoning: { effort: 'low', exclude: true } };
    for await (const _event of await adapter().stream(endpoint('openrouter', 'openai/o4-mini'), body, {
      onUpstreamBody: (b) => (sent = b),
    }));
    expect(sent).toMatchObject({ reasoning: { effort: 'low', exclude: true } });
    expect(sent).not.toHaveProperty('reasoning_effort');
    expect(sent).not.toHaveProperty('stream_options');
    expect(sent).toMatchObject({ usage: { include: true } });
  });

  it('llama.cpp: n above 1 (400 there) is left out', async () => {
    expect(await rawStatus('llamacpp', { model: 'g', messages: [USER], n: 2 })).toBe(400);
    const one = await complete(endpoint('llamacpp', 'g'), { messages: [USER], n: 2 });
    expect(one.choices).toHaveLength(1);
  });
});
