import { ApiError, FunctionCallingConfigMode, GoogleGenAI, Type, type FunctionDeclaration } from '@google/genai';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { anthropicClient, expectAnthropicCreateAndStream, stack } from './e2e-helpers.js';

/** Google's own client pointed at the gateway: it appends /v1/models/{model}:{method} to its base URL, or /v1beta/... with that version. */
const origin = new URL(stack.baseUrl).origin;
const google = new GoogleGenAI({ apiKey: stack.apiKey, httpOptions: { baseUrl: origin } });
const googleBeta = new GoogleGenAI({ apiKey: stack.apiKey, httpOptions: { baseUrl: origin, apiVersion: 'v1beta' } });
const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const anthropic = anthropicClient();
/** A call outside `/v1` (the e2e helper's base), with the stack's key. */
async function v1beta(path: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${origin}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'x-goog-api-key': stack.apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as unknown };
}
const weather: FunctionDeclaration = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: Type.OBJECT, properties: { location: { type: Type.STRING } }, required: ['location'] },
};

/** One model per upstream wire format: the same Gemini request, translated to each and back. */
const models = [
  { format: 'Gemini', model: 'sim/gemini-2.5-flash', prompt: 0.0000003, completion: 0.0000025 },
  { format: 'Vertex AI', model: 'sim/gemini-vertex', prompt: 0.0000003, completion: 0.0000025 },
  { format: 'Anthropic', model: 'sim/claude-sonnet', prompt: 0.000003, completion: 0.000015 },
  { format: 'OpenAI', model: 'sim/gpt-4o-mini', prompt: 0.00000015, completion: 0.0000006 },
] as const;

describe.each(models)('@google/genai at /v1beta on a $format-format model', ({ model }) => {
  it('answers generateContent with a system instruction, in Gemini’s response shape', async () => {
    const answer = await google.models.generateContent({
      model,
      contents: 'Tell me about gateways',
      config: { systemInstruction: 'Be terse.' },
    });
    expect(answer.text).toMatch(/^Simulated reply to: Tell me about gateways/);
    expect(answer.candidates?.[0]?.finishReason).toBe('STOP');
    expect(answer.modelVersion).toBe(model);
    expect(answer.responseId).toMatch(/^gen-/);
    expect(answer.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
    expect(answer.usageMetadata?.candidatesTokenCount).toBeGreaterThan(0);
  });

  it('streams generateContentStream (alt=sse): the same text, usage in the last frame', async () => {
    const whole = await google.models.generateContent({ model, contents: 'Stream about gateways' });
    let text = '';
    let last: Awaited<ReturnType<typeof google.models.generateContent>> | undefined;
    for await (const chunk of await google.models.generateContentStream({ model, contents: 'Stream about gateways' })) {
      text += chunk.text ?? '';
      last = chunk;
    }
    expect(text).toBe(whole.text);
    expect(last?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last?.usageMetadata?.candidatesTokenCount).toBe(whole.usageMetadata?.candidatesTokenCount);
  });

  it('calls a function and takes its response back (multi-turn)', async () => {
    const tools = [{ functionDeclarations: [weather] }];
    const config = { tools, toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } } };
    const first = await google.models.generateContent({ model, contents: 'Weather in Paris', config });
    const calls = first.functionCalls ?? [];
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ name: 'get_weather', args: { location: 'Weather in Paris' } });
    const second = await google.models.generateContent({
      model,
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris' }] },
        first.candidates![0]!.content!,
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: 'Sunny' } } }] },
      ],
      config: { tools },
    });
    expect(second.text).toContain('Based on the tool result: "Sunny"');
  });
});

describe('the /v1beta front door', () => {
  it('streams a function call whole, with the finish reason', async () => {
    const chunks = await google.models.generateContentStream({
      model: 'sim/gemini-2.5-flash',
      contents: 'Weather in Rome',
      config: {
        tools: [{ functionDeclarations: [weather] }],
        toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } },
      },
    });
    const calls = [];
    for await (const chunk of chunks) calls.push(...(chunk.functionCalls ?? []));
    expect(calls).toEqual([expect.objectContaining({ name: 'get_weather', args: { location: 'Weather in Rome' } })]);
  });

  it('answers on /v1beta as on /v1 (the apiVersion Google documents for its REST examples)', async () => {
    const beta = await googleBeta.models.generateContent({ model: 'sim/gpt-4o-mini', contents: 'Same either way' });
    const ga = await google.models.generateContent({ model: 'sim/gpt-4o-mini', contents: 'Same either way' });
    expect(beta.text).toBe(ga.text);
  });

  it("counts tokens: the provider's own count on Gemini and Vertex models, an estimate elsewhere", async () => {
    for (const model of ['sim/gemini-2.5-flash', 'sim/gemini-vertex']) {
      const answer = await google.models.generateContent({ model, contents: 'Count these words' });
      const counted = await google.models.countTokens({ model, contents: 'Count these words' });
      expect(counted.totalTokens).toBe(answer.usageMetadata?.promptTokenCount);
    }
    const estimated = await google.models.countTokens({ model: 'sim/gpt-4o-mini', contents: 'Count these words' });
    expect(estimated.totalTokens).toBeGreaterThan(0);
  });

  it('embeds with embedContent (one and many)', async () => {
    const one = await google.models.embedContent({ model: 'sim/text-embedding-3-small', contents: 'hello' });
    expect(one.embeddings).toHaveLength(1);
    const many = await google.models.embedContent({ model: 'sim/text-embedding-3-small', contents: ['a', 'b', 'c'] });
    expect(many.embeddings).toHaveLength(3);
    expect(many.embeddings![0]!.values).toHaveLength(one.embeddings![0]!.values!.length);
  });

  it('lists and gets models as models/{id}', async () => {
    const names: string[] = [];
    for await (const model of await googleBeta.models.list()) names.push(model.name!);
    expect(names).toEqual(expect.arrayContaining(['models/sim/gemini-2.5-flash', 'models/sim/claude-sonnet']));
    const listed = await v1beta('/v1beta/models/sim/gemini-vertex');
    expect(listed).toMatchObject({
      status: 200,
      body: { name: 'models/sim/gemini-vertex', supportedGenerationMethods: ['generateContent', 'streamGenerateContent'] },
    });
  });

  it("refuses a bad key with Google's error shape, and what it cannot translate with a 400 naming it", async () => {
    const stranger = new GoogleGenAI({ apiKey: 'sk-nope', httpOptions: { baseUrl: origin } });
    const unauthorized = await stranger.models
      .generateContent({ model: 'sim/gpt-4o-mini', contents: 'hi' })
      .catch((error: unknown) => error);
    expect(unauthorized).toBeInstanceOf(ApiError);
    expect((unauthorized as ApiError).status).toBe(401);
    const refused = await google.models
      .generateContent({ model: 'sim/gpt-4o-mini', contents: 'hi', config: { safetySettings: [] } })
      .catch((error: unknown) => error);
    expect((refused as ApiError).status).toBe(400);
    expect((refused as ApiError).message).toContain('safetySettings');
    const raw = await v1beta('/v1beta/models/sim/gpt-4o-mini:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      cachedContent: 'x',
    });
    expect(raw).toMatchObject({
      status: 400,
      body: { error: { code: 400, status: 'INVALID_ARGUMENT', metadata: { error_type: 'invalid_request' } } },
    });
  });
});

describe('openai and @anthropic-ai/sdk against Google-backed models', () => {
  it.each(['sim/gemini-2.5-flash', 'sim/gemini-vertex'])(
    '%s: chat completions, streamed and not, with the price of its usage',
    async (model) => {
      const completion = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hello from OpenAI' }] });
      expect(completion.choices[0]!.message.content).toMatch(/^Simulated reply to: Hello from OpenAI/);
      const usage = completion.usage as OpenAI.CompletionUsage & { cost: number };
      expect(usage.cost).toBeCloseTo(usage.prompt_tokens * 0.0000003 + usage.completion_tokens * 0.0000025, 12);
      let text = '';
      for await (const chunk of await openai.chat.completions.create({
        model,
        stream: true,
        messages: [{ role: 'user', content: 'Hello from OpenAI' }],
      }))
        text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe(completion.choices[0]!.message.content);
    },
  );

  it.each(['sim/gemini-2.5-flash', 'sim/gemini-vertex'])('%s: @anthropic-ai/sdk messages.create and messages.stream', (model) =>
    expectAnthropicCreateAndStream(anthropic, model),
  );

  it("sim/gemini-vertex: a function call's arguments streamed by Vertex reach each front door in pieces, the call whole", async () => {
    const tools = [
      {
        type: 'function' as const,
        function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } },
      },
    ];
    const fragments: string[] = [];
    for await (const chunk of await openai.chat.completions.create({
      model: 'sim/gemini-vertex',
      stream: true,
      tools,
      tool_choice: 'required',
      messages: [{ role: 'user', content: 'Weather in Oslo' }],
    }))
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) if (call.function?.arguments) fragments.push(call.function.arguments);
    expect(fragments.length).toBeGreaterThan(1);
    expect(JSON.parse(fragments.join(''))).toEqual({ location: 'Weather in Oslo' });
    const stream = anthropic.messages.stream({
      model: 'sim/gemini-vertex',
      max_tokens: 256,
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { location: { type: 'string' } } } }],
      tool_choice: { type: 'any' },
      messages: [{ role: 'user', content: 'Weather in Oslo' }],
    });
    let jsonDeltas = 0;
    stream.on('inputJson', () => (jsonDeltas += 1));
    const final = await stream.finalMessage();
    expect(jsonDeltas).toBeGreaterThan(1);
    expect(final.content.find((block) => block.type === 'tool_use')).toMatchObject({
      name: 'get_weather',
      input: { location: 'Weather in Oslo' },
    });
    const calls = [];
    for await (const chunk of await google.models.generateContentStream({
      model: 'sim/gemini-vertex',
      contents: 'Weather in Oslo',
      config: {
        tools: [{ functionDeclarations: [weather] }],
        toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } },
      },
    }))
      calls.push(...(chunk.functionCalls ?? []));
    expect(calls).toEqual([expect.objectContaining({ name: 'get_weather', args: { location: 'Weather in Oslo' } })]);
  });

  it('embeddings on the Gemini API (batchEmbedContents), float and base64, priced on an estimate Gemini does not report', async () => {
    const floats = await openai.embeddings.create({
      model: 'sim/gemini-embedding',
      input: ['alpha', 'beta'],
      dimensions: 8,
      encoding_format: 'float',
    });
    expect(floats.data.map((item) => item.embedding.length)).toEqual([8, 8]);
    const encoded = await openai.embeddings.create({
      model: 'sim/gemini-embedding',
      input: 'alpha',
      dimensions: 8,
      encoding_format: 'base64',
    });
    const bytes = Buffer.from(encoded.data[0]!.embedding as unknown as string, 'base64');
    expect(Array.from(new Float32Array(bytes.buffer, bytes.byteOffset, 8))).toEqual(floats.data[0]!.embedding.map((v) => Math.fround(v)));
  });
});
