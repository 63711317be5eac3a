import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { stack } from './e2e-helpers.js';

/** Chat completions through the clients people build on: LangChain and the Vercel AI SDK (its chat model). */
const models = ['sim/gpt-4o-mini', 'sim/claude-sonnet'];

describe.each(models)('chat completions through LangChain and the Vercel AI SDK on %s', (model) => {
  it('LangChain ChatOpenAI: invoke, stream and a bound tool', async () => {
    const chat = new ChatOpenAI({ model, apiKey: stack.apiKey, configuration: { baseURL: stack.baseUrl }, maxRetries: 0 });
    const answer = await chat.invoke('Tell me about gateways');
    expect(String(answer.content)).toMatch(/^Simulated reply to: Tell me about gateways/);
    expect(answer.usage_metadata?.input_tokens).toBeGreaterThan(0);

    let streamed = '';
    for await (const chunk of await chat.stream('Tell me about gateways')) streamed += String(chunk.content);
    expect(streamed).toBe(String(answer.content));

    const withTool = chat.bindTools([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather for a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ]);
    const call = await withTool.invoke('Weather in Paris?');
    expect(call.tool_calls?.[0]).toMatchObject({ name: 'get_weather', args: { city: expect.any(String) } });
  });

  it('Vercel AI SDK chat model: generateText, streamText and a tool', async () => {
    const provider = createOpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl });
    const generated = await generateText({ model: provider.chat(model), prompt: 'Tell me about gateways' });
    expect(generated.text).toMatch(/^Simulated reply to: Tell me about gateways/);
    expect(generated.usage.inputTokens).toBeGreaterThan(0);

    const streamed = streamText({ model: provider.chat(model), prompt: 'Tell me about gateways' });
    expect(await streamed.text).toBe(generated.text);

    const withTool = await generateText({
      model: provider.chat(model),
      prompt: 'Weather in Paris?',
      tools: {
        get_weather: tool({
          description: 'Weather for a city',
          inputSchema: jsonSchema<{ city: string }>({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }),
        }),
      },
    });
    expect(withTool.toolCalls[0]).toMatchObject({ toolName: 'get_weather', input: { city: expect.any(String) } });
  });
});
