import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embedVector, toBase64 } from './embeddings.ts';
import { startSimulator, type RunningSimulator } from './index.ts';
import { OPENAI_AUTH, post } from './spec-helpers.ts';

let sim: RunningSimulator;
let url: string;
beforeAll(async () => {
  sim = await startSimulator();
  url = `${sim.url}/openai/v1/embeddings`;
});
afterAll(() => sim.close());

describe('embeddings', () => {
  it('answers the OpenAI list shape with deterministic unit vectors', async () => {
    const r = await post(url, { model: 'sim-embedding', input: 'Hello, world!', encoding_format: 'float' }, OPENAI_AUTH);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      object: 'list',
      data: [{ object: 'embedding', index: 0, embedding: Array.from(embedVector('Hello, world!', 16)) }],
      model: 'sim-embedding',
      usage: { prompt_tokens: 4, total_tokens: 4 },
    });
    const v: number[] = r.json.data[0].embedding;
    expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    const again = await post(url, { model: 'sim-embedding', input: 'Hello, world!' }, OPENAI_AUTH);
    expect(again.json.data[0].embedding).toEqual(v);
  });

  it('accepts string arrays, token arrays and dimensions', async () => {
    const r = await post(url, { model: 'e', input: ['a b', 'c'], dimensions: 8 }, OPENAI_AUTH);
    expect(r.json.data.map((d: any) => d.index)).toEqual([0, 1]);
    expect(r.json.data[0].embedding).toHaveLength(8);
    expect(r.json.data[0].embedding).not.toEqual(r.json.data[1].embedding);
    expect(r.json.usage.prompt_tokens).toBe(3);
    const t = await post(url, { model: 'e', input: [[1, 2, 3], [4]] }, OPENAI_AUTH);
    expect(t.json.usage.prompt_tokens).toBe(4);
    const single = await post(url, { model: 'e', input: [1, 2, 3] }, OPENAI_AUTH);
    expect(single.json.data).toHaveLength(1);
    expect(single.json.data[0].embedding).toEqual(t.json.data[0].embedding);
  });

  it('encodes base64 as little-endian float32', async () => {
    const r = await post(url, { model: 'e', input: 'x', encoding_format: 'base64', dimensions: 4 }, OPENAI_AUTH);
    const b64: string = r.json.data[0].embedding;
    expect(b64).toBe(toBase64(embedVector('x', 4)));
    const buf = Buffer.from(b64, 'base64');
    const decoded = [0, 1, 2, 3].map((i) => buf.readFloatLE(i * 4));
    expect(decoded).toEqual(Array.from(embedVector('x', 4)));
  });

  it('validates', async () => {
    expect((await post(url, { model: 'e', input: '' }, OPENAI_AUTH)).status).toBe(400);
    expect((await post(url, { model: 'e' }, OPENAI_AUTH)).json.error.code).toBe('missing_required_parameter');
    expect((await post(url, { model: 'e', input: 'x', encoding_format: 'hex' }, OPENAI_AUTH)).json.error.param).toBe('encoding_format');
    expect((await post(url, { model: 'e', input: 'x', dimensions: 0 }, OPENAI_AUTH)).status).toBe(400);
    expect((await post(url, { model: 'e', input: 'x' })).status).toBe(401);
  });
});
