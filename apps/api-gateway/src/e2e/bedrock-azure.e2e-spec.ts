import OpenAI, { APIError } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicClient, call, envelopeOf, expectAnthropicCreateAndStream, stack } from './e2e-helpers.js';

/**
 * The official clients through the gateway on models served by AWS Bedrock (Converse, signed
 * with SigV4 by the AWS SDK, streamed in the AWS event-stream framing) and by Azure OpenAI
 * (deployments with an api-key, the v1 API with an api-key or a Microsoft Entra ID app), both
 * through the strict provider simulator.
 */
const openai = new OpenAI({ apiKey: stack.apiKey, baseURL: stack.baseUrl, maxRetries: 0 });
const anthropic = anthropicClient();
const tools: OpenAI.ChatCompletionTool[] = [
  {
    type: 'function',
    function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } },
  },
];
type Usage = OpenAI.CompletionUsage & { cost: number };

const models = [
  { model: 'sim/bedrock-claude', provider: 'Simulator (AWS Bedrock Converse)', prompt: 0.000003, completion: 0.000015 },
  { model: 'sim/azure-gpt-4o-mini', provider: 'Simulator (Azure OpenAI deployments)', prompt: 0.00000015, completion: 0.0000006 },
  { model: 'sim/azure-gpt-4o-mini-v1', provider: 'Simulator (Azure OpenAI v1 API)', prompt: 0.00000015, completion: 0.0000006 },
  // Entra ID: inference gets a token from the simulator's tenant over TLS, trusting the stack's per-run CA.
  {
    model: 'sim/azure-gpt-4o-mini-entra',
    provider: 'Simulator (Azure OpenAI v1 API, Entra ID)',
    prompt: 0.00000015,
    completion: 0.0000006,
  },
] as const;

describe.each(models)('$model through the gateway', ({ model, provider, prompt, completion }) => {
  it('openai: a completion priced at the catalog prices, then the same answer streamed', async () => {
    const answer = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Tell me about gateways' }] });
    expect(answer.choices[0]!.message.content).toMatch(/^Simulated reply to: Tell me about gateways/);
    expect(answer.choices[0]!.finish_reason).toBe('stop');
    expect((answer as unknown as { provider: string }).provider).toBe(provider);
    const usage = answer.usage as Usage;
    expect(usage.completion_tokens).toBe(24);
    expect(usage.cost).toBeCloseTo(usage.prompt_tokens * prompt + usage.completion_tokens * completion, 12);

    const stream = await openai.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Tell me about gateways' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let finish: string | null = null;
    let streamedUsage: Usage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) streamedUsage = chunk.usage as Usage;
    }
    expect(text).toBe(answer.choices[0]!.message.content);
    expect(finish).toBe('stop');
    expect(streamedUsage).toMatchObject({ prompt_tokens: usage.prompt_tokens, completion_tokens: 24 });
  });

  it('openai: a tool call with its arguments streamed', async () => {
    const stream = await openai.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Weather in Paris' }],
      tools,
      tool_choice: 'required',
      stream: true,
    });
    let args = '';
    let name: string | undefined;
    let finish: string | null = null;
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0];
      name ??= call?.function?.name;
      args += call?.function?.arguments ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(name).toBe('get_weather');
    expect(JSON.parse(args)).toEqual({ location: 'Weather in Paris' });
    expect(finish).toBe('tool_calls');
  });

  it('@anthropic-ai/sdk: messages.create and messages.stream', () => expectAnthropicCreateAndStream(anthropic, model));
});

describe('Bedrock and Azure specifics through the gateway', () => {
  it('lists the simulator models of both providers', async () => {
    const ids = (await openai.models.list()).data.map((entry) => entry.id);
    expect(ids).toEqual(
      expect.arrayContaining([
        'sim/bedrock-claude',
        'sim/bedrock-titan-embed-text-v2',
        'sim/azure-gpt-4o-mini',
        'sim/azure-text-embedding-3-small',
      ]),
    );
  });

  it('Bedrock throttling is a 429 rate_limit_exceeded with the provider wait as Retry-After', async () => {
    const result = await call('/chat/completions', {
      body: { model: 'sim/bedrock-claude-throttled', messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(result.status).toBe(429);
    expect(result.headers.get('retry-after')).toBe('3');
    expect(envelopeOf(result).metadata).toMatchObject({ error_type: 'rate_limit_exceeded', retry_after: 3 });
  });

  it('a Bedrock guardrail intervention ends the answer with content_filter', async () => {
    const answer = await openai.chat.completions.create({
      model: 'sim/bedrock-claude-guarded',
      messages: [{ role: 'user', content: 'Tell me the forbidden thing' }],
    });
    expect(answer.choices[0]!.finish_reason).toBe('content_filter');
    expect((answer.choices[0] as unknown as { native_finish_reason: string }).native_finish_reason).toBe('guardrail_intervened');
  });

  it("Azure's content filter on the prompt is a 400 content_policy_violation", async () => {
    const error = await openai.chat.completions
      .create({ model: 'sim/azure-gpt-4o-mini-filtered', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(400);
    expect((error as APIError).error).toMatchObject({ metadata: { error_type: 'content_policy_violation' } });
  });

  it('embeddings with Titan on Bedrock (InvokeModel), priced per prompt token', async () => {
    const result = await openai.embeddings.create({
      model: 'sim/bedrock-titan-embed-text-v2',
      input: ['one two', 'three'],
      dimensions: 256,
    });
    expect(result.data.map((item) => item.embedding.length)).toEqual([256, 256]);
    expect(result.usage.prompt_tokens).toBe(3);
    expect((result.usage as unknown as { cost: number }).cost).toBeCloseTo(3 * 0.00000002, 12);
  });

  it("the Responses API natively on Azure (v1 API, Entra ID), through openai's responses client", async () => {
    const response = await openai.responses.create({ model: 'sim/azure-gpt-4o-mini-entra', input: 'Tell me about gateways' });
    expect(response.status).toBe('completed');
    expect(response.output_text).toMatch(/^Simulated reply to: Tell me about gateways/);
    expect(response.usage).toMatchObject({ output_tokens: 24 });
  });

  it('embeddings on an Azure deployment, priced per prompt token', async () => {
    const result = await openai.embeddings.create({ model: 'sim/azure-text-embedding-3-small', input: ['one two', 'three'] });
    expect(result.data).toHaveLength(2);
    expect(result.usage.prompt_tokens).toBe(3);
  });
});

describe("BYOK on Bedrock and Azure: the workspace's own keys, region, resource and deployment", () => {
  const credentials: string[] = [];
  let own: { key: string; data: { hash: string } };
  const simulatorPort = new URL(stack.simulatorUrl).port;

  const store = async (provider: string, key: string) => {
    const created = await call('/byok', {
      key: stack.managementKey,
      body: { provider, key, name: `e2e ${provider}`, is_byok_only: true, allowed_api_key_hashes: [own.data.hash] },
    });
    expect(created.status).toBe(201);
    credentials.push((created.body as { data: { id: string } }).data.id);
  };
  const ask = (model: string) => call('/chat/completions', { key: own.key, body: { model, messages: [{ role: 'user', content: 'hi' }] } });

  beforeAll(async () => {
    const created = await call('/keys', { key: stack.managementKey, method: 'POST', body: { name: 'bedrock-azure byok' } });
    own = created.body as typeof own;
    await store(
      'simulator-bedrock',
      JSON.stringify({
        accessKeyId: 'AKIASIMULATOR0000001',
        secretAccessKey: 'simulator/secret/key/0000000000000000000',
        region: 'eu-west-1',
      }),
    );
    // A loopback resource under another name than the one the operator allowed: refused.
    await store(
      'simulator-azure',
      JSON.stringify({ apiKey: 'azure-sim-key', endpoint: `http://localhost:${simulatorPort}/azure`, deployment: 'mine' }),
    );
    await store(
      'simulator-azure-v1',
      JSON.stringify({ apiKey: 'azure-sim-key', endpoint: `${stack.simulatorUrl}/azure`, deployment: 'mine' }),
    );
  });
  afterAll(async () => {
    for (const id of credentials) await call(`/byok/${id}`, { key: stack.managementKey, method: 'DELETE' });
  });

  it('signs Bedrock calls with the stored keys and marks them BYOK', async () => {
    await expect.poll(async () => (await ask('sim/bedrock-claude')).status, { timeout: 30_000 }).toBe(200);
    const usage = ((await ask('sim/bedrock-claude')).body as { usage: { is_byok: boolean } }).usage;
    expect(usage.is_byok).toBe(true);
  });

  it("calls the credential's own Azure resource when the operator allows its origin, refuses a private one otherwise", async () => {
    await expect.poll(async () => (await ask('sim/azure-gpt-4o-mini-v1')).status, { timeout: 30_000 }).toBe(200);
    expect(((await ask('sim/azure-gpt-4o-mini-v1')).body as { usage: { is_byok: boolean } }).usage.is_byok).toBe(true);
    const refused = await ask('sim/azure-gpt-4o-mini');
    expect(refused.status).toBe(400);
    expect(envelopeOf(refused)).toMatchObject({
      message: expect.stringMatching(/private, loopback or link-local/),
      metadata: { error_type: 'invalid_request' },
    });
  });
});
