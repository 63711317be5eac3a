import {
  BedrockRuntimeClient,
  ConverseCommand,
  ConverseStreamCommand,
  InvokeModelCommand,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { Sha256 } from '@aws-crypto/sha256-js';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { SignatureV4 } from '@smithy/signature-v4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIM_AWS_ACCESS_KEY_ID, SIM_AWS_SECRET_ACCESS_KEY } from './bedrock-auth.ts';
import { startSimulator, type RunningSimulator } from './index.ts';
import { post } from './spec-helpers.ts';

let sim: RunningSimulator;
let bedrock: BedrockRuntimeClient;
const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const client = (secretAccessKey: string, accessKeyId = SIM_AWS_ACCESS_KEY_ID) =>
  new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: `${sim.url}/bedrock`,
    credentials: { accessKeyId, secretAccessKey },
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler(),
  });

beforeAll(async () => {
  sim = await startSimulator();
  bedrock = client(SIM_AWS_SECRET_ACCESS_KEY);
});
afterAll(() => sim.close());

/** A raw Converse call signed as the SDK signs it (SigV4, smithy signer). */
async function signedPost(path: string, body: unknown): Promise<{ status: number; headers: Headers; json: any }> {
  const url = new URL(`${sim.url}${path.replace(':', '%3A')}`);
  const signer = new SignatureV4({
    credentials: { accessKeyId: SIM_AWS_ACCESS_KEY_ID, secretAccessKey: SIM_AWS_SECRET_ACCESS_KEY },
    region: 'us-east-1',
    service: 'bedrock',
    sha256: Sha256,
  });
  const text = JSON.stringify(body);
  const signed = await signer.sign({
    method: 'POST',
    protocol: 'http:',
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    query: {},
    headers: { host: url.host, 'content-type': 'application/json' },
    body: text,
  } as never);
  const res = await fetch(url, { method: 'POST', headers: (signed as unknown as { headers: Record<string, string> }).headers, body: text });
  return { status: res.status, headers: res.headers, json: await res.json() };
}

const hello = { messages: [{ role: 'user' as const, content: [{ text: 'Tell me a joke' }] }] };

describe('Bedrock Converse (real AWS SDK)', () => {
  it('answers a signed Converse call with usage and a stop reason', async () => {
    const out = await bedrock.send(new ConverseCommand({ modelId: MODEL, ...hello, system: [{ text: 'Be brief.' }] }));
    expect(out.stopReason).toBe('end_turn');
    expect(out.output?.message?.content?.[0]?.text).toMatch(/^Simulated reply to: Tell me a joke\./);
    expect(out.usage).toMatchObject({ inputTokens: 13, outputTokens: 24, totalTokens: 37 });
  });

  it('takes an inference profile id as the model id', async () => {
    const out = await bedrock.send(new ConverseCommand({ modelId: `us.${MODEL}`, ...hello }));
    expect(out.stopReason).toBe('end_turn');
  });

  it('refuses a wrong secret, an unknown key and a stale signature with Bedrock 403s', async () => {
    await expect(client('wrong-secret').send(new ConverseCommand({ modelId: MODEL, ...hello }))).rejects.toMatchObject({
      name: 'InvalidSignatureException',
      $metadata: { httpStatusCode: 403 },
    });
    await expect(
      client(SIM_AWS_SECRET_ACCESS_KEY, 'AKIAUNKNOWN000000000').send(new ConverseCommand({ modelId: MODEL, ...hello })),
    ).rejects.toMatchObject({
      name: 'UnrecognizedClientException',
    });
    const stale = new BedrockRuntimeClient({
      region: 'us-east-1',
      endpoint: `${sim.url}/bedrock`,
      credentials: { accessKeyId: SIM_AWS_ACCESS_KEY_ID, secretAccessKey: SIM_AWS_SECRET_ACCESS_KEY },
      systemClockOffset: -10 * 60 * 1000,
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler(),
    });
    await expect(stale.send(new ConverseCommand({ modelId: MODEL, ...hello }))).rejects.toThrow(/Signature expired/);
    const ahead = new BedrockRuntimeClient({
      region: 'us-east-1',
      endpoint: `${sim.url}/bedrock`,
      credentials: { accessKeyId: SIM_AWS_ACCESS_KEY_ID, secretAccessKey: SIM_AWS_SECRET_ACCESS_KEY },
      systemClockOffset: 10 * 60 * 1000,
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler(),
    });
    await expect(ahead.send(new ConverseCommand({ modelId: MODEL, ...hello }))).rejects.toThrow(/Signature not yet current/);
    // AWS's clock moved instead (/sim/aws/clock): refused, and dated by that clock, so the SDK corrects its offset.
    const clock = (offsetMs: number) => fetch(`${sim.url}/sim/aws/clock`, { method: 'POST', body: JSON.stringify({ offsetMs }) });
    await clock(10 * 60 * 1000);
    try {
      const onTime = client(SIM_AWS_SECRET_ACCESS_KEY);
      await expect(onTime.send(new ConverseCommand({ modelId: MODEL, ...hello }))).rejects.toMatchObject({
        message: expect.stringMatching(/^Signature expired/),
        $metadata: { clockSkewCorrected: true },
      });
      expect(onTime.config.systemClockOffset).toBeGreaterThan(9 * 60 * 1000);
      expect((await onTime.send(new ConverseCommand({ modelId: MODEL, ...hello }))).stopReason).toBe('end_turn');
    } finally {
      await clock(0);
    }
    const unsigned = await post(`${sim.url}/bedrock/model/${MODEL}/converse`, hello);
    expect(unsigned.status).toBe(403);
    expect(unsigned.headers.get('x-amzn-errortype')).toMatch(/^MissingAuthenticationTokenException/);
  });

  it('refuses unknown fields and a broken conversation with ValidationException', async () => {
    // The SDK drops members it does not know, so a leaked field is sent raw (signed all the same).
    const leaked = await signedPost(`/bedrock/model/${MODEL}/converse`, { ...hello, inferenceConfig: { maxTokens: 10, topK: 5 } });
    expect(leaked.status).toBe(400);
    expect(leaked.headers.get('x-amzn-errortype')).toMatch(/^ValidationException/);
    expect(leaked.json.message).toMatch(/extraneous key \[topK\]/);
    expect((await signedPost(`/bedrock/model/${MODEL}/converse`, { ...hello, temperature: 0.2 })).json.message).toMatch(
      /extraneous key \[temperature\]/,
    );
    expect((await signedPost(`/bedrock/model/${MODEL}/converse`, hello)).status).toBe(200);
    await expect(
      bedrock.send(new ConverseCommand({ modelId: MODEL, messages: [{ role: 'assistant', content: [{ text: 'hi' }] }] })),
    ).rejects.toMatchObject({ name: 'ValidationException', message: expect.stringMatching(/start with a user message/) });
    await expect(
      bedrock.send(
        new ConverseCommand({
          modelId: MODEL,
          messages: [
            { role: 'user', content: [{ text: 'hi' }] },
            { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'f', input: {} } }] },
          ],
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException', message: expect.stringMatching(/toolConfig field must be defined/) });
  });

  it('calls a tool and takes its result back', async () => {
    const toolConfig = {
      tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object', properties: { city: { type: 'string' } } } } } }],
    };
    const first = await bedrock.send(
      new ConverseCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'Weather in Paris' }] }], toolConfig }),
    );
    expect(first.stopReason).toBe('tool_use');
    const call = first.output!.message!.content![0]!.toolUse!;
    expect(call).toMatchObject({ name: 'get_weather', input: { city: 'Weather in Paris' } });
    const second = await bedrock.send(
      new ConverseCommand({
        modelId: MODEL,
        toolConfig,
        messages: [
          { role: 'user', content: [{ text: 'Weather in Paris' }] },
          { role: 'assistant', content: [{ toolUse: call }] },
          { role: 'user', content: [{ toolResult: { toolUseId: call.toolUseId, content: [{ text: 'sunny' }] } }] },
        ],
      }),
    );
    expect(second.output!.message!.content![0]!.text).toBe('Based on the tool result: "sunny".');
  });

  it('streams in the event-stream framing the SDK decodes', async () => {
    const out = await bedrock.send(new ConverseStreamCommand({ modelId: MODEL, ...hello }));
    const events: ConverseStreamOutput[] = [];
    for await (const event of out.stream!) events.push(event);
    expect(events[0]!.messageStart).toEqual({ role: 'assistant' });
    const text = events.map((e) => e.contentBlockDelta?.delta?.text ?? '').join('');
    expect(text).toMatch(/^Simulated reply to: Tell me a joke\./);
    expect(events.at(-2)!.messageStop?.stopReason).toBe('end_turn');
    expect(events.at(-1)!.metadata?.usage).toMatchObject({ inputTokens: 10, outputTokens: 24 });
  });

  it('throttles with ThrottlingException and sends a mid-stream exception as an SDK error', async () => {
    await expect(bedrock.send(new ConverseCommand({ modelId: `${MODEL};status=429;retry-after=7`, ...hello }))).rejects.toMatchObject({
      name: 'ThrottlingException',
      $metadata: { httpStatusCode: 429 },
    });
    const out = await bedrock.send(new ConverseStreamCommand({ modelId: `${MODEL};stream-error=2`, ...hello }));
    const read = async () => {
      for await (const _event of out.stream!) void _event;
    };
    await expect(read()).rejects.toMatchObject({ name: 'ModelStreamErrorException' });
  });

  it('embeds with Titan through a signed InvokeModel, strict on its body', async () => {
    const invoke = (body: unknown) =>
      bedrock.send(
        new InvokeModelCommand({ modelId: 'amazon.titan-embed-text-v2:0', contentType: 'application/json', body: JSON.stringify(body) }),
      );
    const out = JSON.parse(Buffer.from((await invoke({ inputText: 'one two', dimensions: 256 })).body).toString());
    expect(out.embedding).toHaveLength(256);
    expect(out.inputTextTokenCount).toBe(2);
    await expect(invoke({ inputText: 'x', dimensions: 300 })).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(invoke({ inputText: 'x', input: 'y' })).rejects.toMatchObject({
      name: 'ValidationException',
      message: expect.stringMatching(/extraneous key \[input\]/),
    });
  });

  it('intervenes with the guardrail and reports its trace', async () => {
    const out = await bedrock.send(
      new ConverseCommand({
        modelId: MODEL,
        messages: [{ role: 'user', content: [{ text: 'Tell me the forbidden thing' }] }],
        guardrailConfig: { guardrailIdentifier: 'gr-sim', guardrailVersion: '1', trace: 'enabled' },
      }),
    );
    expect(out.stopReason).toBe('guardrail_intervened');
    expect(out.trace?.guardrail?.inputAssessment?.['gr-sim']).toBeDefined();
  });
});
