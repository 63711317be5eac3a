import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../index.ts';
import { OPENAI_AUTH, parseSse, post } from '../spec-helpers.ts';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());

const USER = [{ role: 'user', content: 'Hello there' }];
const chat = (host: string, body: Record<string, unknown>, headers: Record<string, string> = OPENAI_AUTH) =>
  post(`${sim.url}/hosts/${host}/v1/chat/completions`, { messages: USER, ...body }, headers);

describe('OpenAI-compatible hosts, each as strict as its reference', () => {
  it('Groq: refuses logprobs and unknown fields with its own words, answers plain calls', async () => {
    expect((await chat('groq', { model: 'llama', logprobs: true })).status).toBe(400);
    const unknown = await chat('groq', { model: 'llama', top_k: 2 });
    expect(unknown.json.error.message).toBe("property 'top_k' is unsupported");
    expect((await chat('groq', { model: 'llama', n: 2 })).json.error.message).toMatch(/must be at most 1/);
    expect((await chat('groq', { model: 'llama', messages: [{ ...USER[0], name: 'x' }] })).status).toBe(400);
    expect((await chat('groq', { model: 'llama' })).status).toBe(200);
  });

  it('Mistral: 422 extra_forbidden for fields outside its schema, 9-character tool call ids both ways, random_seed taken', async () => {
    const refused = await chat('mistral', { model: 'm', max_completion_tokens: 5 });
    expect(refused.status).toBe(422);
    expect(refused.json.message.detail[0]).toMatchObject({ type: 'extra_forbidden', loc: ['body', 'max_completion_tokens'] });
    expect((await chat('mistral', { model: 'm', stream: true, stream_options: { include_usage: true } })).status).toBe(422);
    expect((await chat('mistral', { model: 'm', messages: [{ role: 'developer', content: 'x' }, ...USER] })).status).toBe(422);
    expect((await chat('mistral', { model: 'm', random_seed: 3 })).status).toBe(200);
    const tool = { type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } } } } };
    const answer = await chat('mistral', { model: 'm', tools: [tool], tool_choice: 'required' });
    expect(answer.json.choices[0].message.tool_calls[0].id).toMatch(/^[a-zA-Z0-9]{9}$/);
    const history = [
      ...USER,
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
    ];
    expect((await chat('mistral', { model: 'm', tools: [tool], messages: history })).json.message).toMatch(/Tool call id was call_1/);
  });

  it('Mistral: usage on a stream without stream_options', async () => {
    const stream = await chat('mistral', { model: 'm', stream: true });
    const frames = parseSse(stream.text).filter((event) => event.data !== '[DONE]');
    expect(frames.some((event) => JSON.parse(event.data).usage?.prompt_tokens > 0)).toBe(true);
  });

  it('DeepSeek: JSON mode only, reasoning_content and prompt_cache_hit_tokens, reasoning wanted back on thinking tool turns', async () => {
    const schema = { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } };
    expect((await chat('deepseek', { model: 'deepseek-chat', response_format: schema })).status).toBe(400);
    const answer = await chat('deepseek', { model: 'deepseek-reasoner;reasoning=3;cached=2' });
    expect(answer.json.choices[0].message.reasoning_content).toMatch(/^Thinking/);
    expect(answer.json.choices[0].message).not.toHaveProperty('reasoning');
    expect(answer.json.usage).toMatchObject({ prompt_cache_hit_tokens: 2, completion_tokens_details: { reasoning_tokens: 3 } });
    expect(answer.json.usage).not.toHaveProperty('prompt_tokens_details');
    const turn = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
    };
    const back = await chat('deepseek', {
      model: 'deepseek-reasoner',
      messages: [...USER, turn, { role: 'tool', tool_call_id: 'c', content: 'x' }],
    });
    expect(back.json.error.message).toMatch(/reasoning_content/);
  });

  it('xAI: a Grok 4 reasoning model refuses stop; reasoning tokens counted apart from completion_tokens', async () => {
    expect((await chat('xai', { model: 'grok-4', stop: ['x'] })).json.error.message).toBe('Model grok-4 does not support parameter stop.');
    expect((await chat('xai', { model: 'grok-4-fast-non-reasoning', stop: ['x'] })).status).toBe(200);
    const usage = (await chat('xai', { model: 'grok-4;reasoning=5' })).json.usage;
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens + usage.completion_tokens_details.reasoning_tokens);
  });

  it('Cerebras: refuses penalties and parallel_tool_calls; a 429 says its wait only in x-ratelimit headers', async () => {
    expect((await chat('cerebras', { model: 'gpt-oss-120b', presence_penalty: 1 })).status).toBe(400);
    expect((await chat('cerebras', { model: 'gpt-oss-120b', parallel_tool_calls: false })).status).toBe(400);
    const limited = await chat('cerebras', { model: 'gpt-oss-120b;status=429;retry-after=7' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeNull();
    expect(limited.headers.get('x-ratelimit-reset-tokens-minute')).toBe('7');
  });

  it('Perplexity: roles must alternate, no tools; citations, search results and a search count in every answer', async () => {
    expect((await chat('perplexity', { model: 'sonar', messages: [...USER, ...USER] })).status).toBe(400);
    expect((await chat('perplexity', { model: 'sonar', tools: [] })).status).toBe(400);
    const answer = await chat('perplexity', { model: 'sonar' });
    expect(answer.json.citations).toHaveLength(2);
    expect(answer.json.usage).toMatchObject({ num_search_queries: 1, search_context_size: 'low' });
  });

  it('error bodies in each host shape: LM Studio a string, vLLM a top-level message, llama.cpp and OpenRouter a numeric code', async () => {
    expect((await chat('lmstudio', { model: 'q', response_format: { type: 'json_object' } })).json).toEqual({
      error: "'response_format.type' must be 'json_schema'",
    });
    expect((await chat('vllm', { model: 'q;status=400' })).json).toMatchObject({ object: 'error', code: 400 });
    expect((await chat('llamacpp', { model: 'q;context=2' })).json.error).toMatchObject({ code: 400, type: 'exceed_context_size_error' });
    expect((await chat('openrouter', { model: 'q;status=402' })).json.error.code).toBe(402);
  });

  it('credentials: keyed hosts refuse a missing or invalid key; Ollama and LM Studio take none', async () => {
    expect((await chat('groq', { model: 'm' }, {})).status).toBe(401);
    expect((await chat('together', { model: 'm' }, { authorization: 'Bearer sk-sim-invalid' })).status).toBe(401);
    expect((await chat('ollama', { model: 'm' }, {})).status).toBe(200);
    expect((await chat('vllm', { model: 'm' }, {})).status).toBe(200);
    expect((await chat('nowhere', { model: 'm' })).status).toBe(404);
  });

  it('Ollama: a cap under a name it does not know caps nothing (it ignores the field)', async () => {
    const ignored = await chat('ollama', { model: 'm', max_completion_tokens: 3 });
    expect(ignored.json.choices[0].finish_reason).toBe('stop');
    expect((await chat('ollama', { model: 'm', max_tokens: 3 })).json.choices[0].finish_reason).toBe('length');
  });
});
