import type { IncomingMessage, ServerResponse } from 'node:http';
import { openaiError } from './errors.ts';
import { cutBeforeBody, randomId, sendJson } from './http.ts';
import { openaiPreamble } from './openai.ts';
import { countTokens, hash32, prng } from './tokens.ts';

export const DEFAULT_DIMENSIONS = 16;
const MAX_DIMENSIONS = 4096;
const MAX_INPUTS = 2048;

/** A deterministic unit-norm float32 vector seeded from `seedText`. */
export function embedVector(seedText: string, dimensions: number): Float32Array {
  const rand = prng(hash32(seedText));
  const values = new Float64Array(dimensions);
  let norm = 0;
  for (let i = 0; i < dimensions; i++) {
    const v = rand() * 2 - 1;
    values[i] = v;
    norm += v * v;
  }
  norm = Math.sqrt(norm) || 1;
  const out = new Float32Array(dimensions);
  for (let i = 0; i < dimensions; i++) out[i] = values[i]! / norm;
  return out;
}

/** Little-endian float32 bytes, base64 encoded (OpenAI's `encoding_format: "base64"`). */
export function toBase64(vector: Float32Array): string {
  const buf = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) buf.writeFloatLE(vector[i]!, i * 4);
  return buf.toString('base64');
}

interface EmbedInput {
  seed: string;
  tokens: number;
}

function isTokenArray(v: unknown): v is number[] {
  return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'number' && Number.isInteger(x));
}

/** Normalises `input` (string, string[], number[] or number[][]); undefined when invalid. */
export function parseInputs(input: unknown): EmbedInput[] | undefined {
  const fromText = (s: string): EmbedInput => ({ seed: s, tokens: countTokens(s) });
  const fromTokens = (t: number[]): EmbedInput => ({ seed: `tokens:${t.join(',')}`, tokens: t.length });
  if (typeof input === 'string') return input === '' ? undefined : [fromText(input)];
  if (!Array.isArray(input) || input.length === 0 || input.length > MAX_INPUTS) return undefined;
  if (isTokenArray(input)) return [fromTokens(input)];
  const out: EmbedInput[] = [];
  for (const item of input) {
    if (typeof item === 'string' && item !== '') out.push(fromText(item));
    else if (isTokenArray(item)) out.push(fromTokens(item));
    else return undefined;
  }
  return out;
}

export async function handleEmbeddings(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
  const pre = await openaiPreamble(req, res, raw);
  if (!pre) return;
  const { body, base, directives: d } = pre;
  const bad = (message: string, param: string | null = null, code: string | null = null) =>
    sendJson(res, 400, openaiError(message, 'invalid_request_error', param, code));
  if (typeof body.model !== 'string' || body.model === '') return bad('you must provide a model parameter');
  if (body.input === undefined) return bad("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');
  const inputs = parseInputs(body.input);
  if (!inputs) return bad("'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.");
  const format = body.encoding_format ?? 'float';
  if (format !== 'float' && format !== 'base64') {
    return bad(`Invalid value: '${String(format)}'. Supported values are: 'float' and 'base64'.`, 'encoding_format', 'invalid_value');
  }
  const dims = body.dimensions ?? DEFAULT_DIMENSIONS;
  if (typeof dims !== 'number' || !Number.isInteger(dims) || dims < 1 || dims > MAX_DIMENSIONS) {
    return bad(`Invalid 'dimensions': expected an integer between 1 and ${MAX_DIMENSIONS}.`, 'dimensions', 'invalid_value');
  }
  const longest = Math.max(...inputs.map((i) => i.tokens));
  if (longest > d.context) {
    return bad(
      `This model's maximum context length is ${d.context} tokens, however you requested ${longest} tokens (${longest} in your prompt; 0 for the completion). Please reduce your prompt; or completion length.`,
      null,
      'context_length_exceeded',
    );
  }
  const headers = { 'x-request-id': `req_${randomId(24)}` };
  if (d.cut !== undefined) return cutBeforeBody(res, headers);
  const promptTokens = inputs.reduce((s, i) => s + i.tokens, 0);
  sendJson(
    res,
    200,
    {
      object: 'list',
      data: inputs.map((input, index) => {
        const vector = embedVector(input.seed, dims);
        return { object: 'embedding', index, embedding: format === 'base64' ? toBase64(vector) : Array.from(vector) };
      }),
      model: base,
      usage: { prompt_tokens: promptTokens, total_tokens: promptTokens },
    },
    headers,
  );
}
