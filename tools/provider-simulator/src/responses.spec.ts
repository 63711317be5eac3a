import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from './index.ts';
import { OPENAI_AUTH, parseSse, post } from './spec-helpers.ts';

let sim: RunningSimulator;
let openai: OpenAI;
beforeAll(async () => {
  sim = await startSimulator();
  openai = new OpenAI({ apiKey: 'sk-sim', baseURL: `${sim.url}/openai/v1`, maxRetries: 0 });
});
afterAll(() => sim.close());

const weather = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  strict: true,
};

describe('OpenAI Responses API (POST /openai/v1/responses)', () => {
  it('answers responses.create with a message item, output_text and usage', async () => {
    const response = await openai.responses.create({ model: 'sim-gpt', input: 'Tell me a joke', instructions: 'Be brief.' });
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
    expect(response.output_text).toMatch(/^Simulated reply to: Tell me a joke\./);
    expect(response.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(response.usage).toMatchObject({
      output_tokens: 24,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it('streams semantic events the openai client accumulates into the same response', async () => {
    const stream = openai.responses.stream({ model: 'sim-gpt', input: 'Tell me a joke' });
    const types: string[] = [];
    let text = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    const final = await stream.finalResponse();
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(types.at(-1)).toBe('response.completed');
    expect(final.output_text).toBe(text);
  });

  it('calls a function tool, then quotes its output from a function_call_output item', async () => {
    const first = await openai.responses.create({ model: 'sim-gpt', input: 'Weather in Paris?', tools: [weather] });
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
    if (call?.type !== 'function_call') throw new Error('no call');
    expect(JSON.parse(call.arguments)).toEqual({ city: 'Weather in Paris?' });
    const second = await openai.responses.create({
      model: 'sim-gpt',
      tools: [weather],
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        call,
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
      ],
    });
    expect(second.output_text).toBe('Based on the tool result: "sunny".');
  });

  it('answers a JSON schema format with JSON, and stops at max_output_tokens as incomplete', async () => {
    const json = await openai.responses.create({
      model: 'sim-gpt',
      input: 'Name a city',
      text: {
        format: {
          type: 'json_schema',
          name: 'city',
          schema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        },
      },
    });
    expect(JSON.parse(json.output_text)).toEqual({ name: expect.stringMatching(/^Simulated reply to: Name a city./) });
    const cut = await openai.responses.create({ model: 'sim-gpt', input: 'Tell me a long story', max_output_tokens: 16 });
    expect(cut.status).toBe('incomplete');
    expect(cut.incomplete_details).toEqual({ reason: 'max_output_tokens' });
  });

  it('reasons with a summary and encrypted content when asked', async () => {
    const response = await openai.responses.create({
      model: 'sim-gpt',
      input: 'Why?',
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      store: false,
    });
    const reasoning = response.output[0];
    expect(reasoning).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Thinking about how to answer: Why?' }] });
    expect(reasoning?.type === 'reasoning' && typeof reasoning.encrypted_content).toBe('string');
    expect(response.usage?.output_tokens_details.reasoning_tokens).toBe(16);
  });

  it('refuses what OpenAI refuses: unknown parameters, chat-shaped tools, max_output_tokens below 16', async () => {
    const unknown = await post(`${sim.url}/openai/v1/responses`, { model: 'sim-gpt', input: 'x', messages: [] }, OPENAI_AUTH);
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toMatchObject({ code: 'unknown_parameter', param: 'messages' });
    const nested = await post(
      `${sim.url}/openai/v1/responses`,
      { model: 'sim-gpt', input: 'x', tools: [{ type: 'function', function: { name: 'f' } }] },
      OPENAI_AUTH,
    );
    expect(nested.json.error).toMatchObject({ param: 'tools[0].name' });
    const small = await post(`${sim.url}/openai/v1/responses`, { model: 'sim-gpt', input: 'x', max_output_tokens: 8 }, OPENAI_AUTH);
    expect(small.json.error).toMatchObject({ code: 'integer_below_min_value' });
  });

  it('fails a stream part-way with an error event when asked to (stream-error)', async () => {
    const result = await post(
      `${sim.url}/openai/v1/responses`,
      { model: 'sim-gpt;stream-error=2', input: 'Tell me a joke', stream: true },
      OPENAI_AUTH,
    );
    const events = parseSse(result.text);
    const last = JSON.parse(events.at(-1)!.data);
    expect(events.at(-1)!.event).toBe('error');
    expect(last).toMatchObject({ type: 'error', code: 'server_error' });
    const sequences = events.map((event) => JSON.parse(event.data).sequence_number as number);
    expect(sequences).toEqual(sequences.map((_, index) => index));
  });
});
