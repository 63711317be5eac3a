import OpenAI, { AzureOpenAI } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_AZURE_API_KEY } from './azure.ts';
import { startSimulator, type RunningSimulator } from './index.ts';
import { post } from './spec-helpers.ts';

let sim: RunningSimulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(() => sim.close());

const azure = (options: { apiKey?: string; apiVersion?: string; deployment?: string } = {}) =>
  new AzureOpenAI({
    endpoint: `${sim.url}/azure`,
    apiKey: options.apiKey ?? SIM_AZURE_API_KEY,
    apiVersion: options.apiVersion ?? '2024-10-21',
    deployment: options.deployment ?? 'gpt-4o-mini-prod',
    maxRetries: 0,
  });
const hello = [{ role: 'user' as const, content: 'Tell me a joke' }];

describe('Azure OpenAI (real openai AzureOpenAI client)', () => {
  it('answers a deployment by name, with filter results', async () => {
    const res = await azure().chat.completions.create({ model: '', messages: hello });
    expect(res.model).toBe('gpt-4o-mini-prod');
    expect(res.choices[0]!.finish_reason).toBe('stop');
    expect((res as unknown as { prompt_filter_results: unknown[] }).prompt_filter_results).toHaveLength(1);
    expect(res.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 24 });
  });

  it('answers the v1 API with the deployment as model', async () => {
    const v1 = new OpenAI({
      baseURL: `${sim.url}/azure/openai/v1`,
      apiKey: 'unused',
      defaultHeaders: { 'api-key': SIM_AZURE_API_KEY },
      maxRetries: 0,
    });
    const res = await v1.chat.completions.create({ model: 'gpt-4o-mini-prod', messages: hello });
    expect(res.choices[0]!.message.content).toMatch(/^Simulated reply to: Tell me a joke\./);
  });

  it('refuses a wrong key, a missing or unknown api-version as Azure does', async () => {
    await expect(azure({ apiKey: 'nope' }).chat.completions.create({ model: '', messages: hello })).rejects.toMatchObject({ status: 401 });
    await expect(azure({ apiVersion: '2019-01-01' }).chat.completions.create({ model: '', messages: hello })).rejects.toMatchObject({
      status: 400,
    });
    const noVersion = await post(
      `${sim.url}/azure/openai/deployments/d/chat/completions`,
      { messages: hello },
      { 'api-key': SIM_AZURE_API_KEY },
    );
    expect(noVersion.status).toBe(404);
    const bearer = await post(
      `${sim.url}/azure/openai/v1/chat/completions`,
      { model: 'd', messages: hello },
      { authorization: 'Bearer sk-sim' },
    );
    expect(bearer.status).toBe(401);
  });

  it('filters a prompt with the content_filter error and an answer with finish_reason content_filter', async () => {
    await expect(
      azure({ deployment: 'gpt;content-filter=prompt' }).chat.completions.create({ model: '', messages: hello }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'content_filter',
      error: { innererror: { code: 'ResponsibleAIPolicyViolation' } },
    });
    const res = await azure({ deployment: 'gpt;content-filter=output' }).chat.completions.create({ model: '', messages: hello });
    expect(res.choices[0]!.finish_reason).toBe('content_filter');
    const stream = await azure({ deployment: 'gpt;content-filter=output' }).chat.completions.create({
      model: '',
      messages: hello,
      stream: true,
    });
    let finish: string | null = null;
    for await (const chunk of stream) finish = chunk.choices[0]?.finish_reason ?? finish;
    expect(finish).toBe('content_filter');
  });

  it('serves embeddings on a deployment', async () => {
    const res = await azure({ deployment: 'embed-small' }).embeddings.create({ model: '', input: ['a', 'b'] });
    expect(res.data).toHaveLength(2);
  });
});
