import type { IncomingMessage, ServerResponse } from 'node:http';
import { handleEmbeddings } from '../embeddings.ts';
import { sendJson } from '../http.ts';
import { parseJsonObject, type Json } from '../json.ts';
import { HOST_RULES, isHostName, type HostName } from './host-rules.ts';
import { hostErrorBody } from './host-responses.ts';

/**
 * What each simulated host's `/embeddings` takes, as its API reference documents it (the
 * simulator's own copy: it never imports the gateway's profiles). A host absent here has no
 * embeddings endpoint (a 404, as the real one answers an unknown route).
 */
interface EmbeddingRules {
  /** Its top-level fields; others are refused (`strict`) or ignored. */
  fields: readonly string[];
  strict: boolean;
  /** The field of a shortened vector, if any. */
  dimensions?: 'dimensions' | 'output_dimension';
  base64: boolean;
  tokenInput: boolean;
}

const OPENAI_FIELDS = ['model', 'input', 'dimensions', 'encoding_format', 'user'];

const RULES: Partial<Record<HostName, EmbeddingRules>> = {
  mistral: {
    fields: ['model', 'input', 'output_dimension', 'output_dtype', 'encoding_format', 'metadata'],
    strict: true,
    dimensions: 'output_dimension',
    base64: true,
    tokenInput: false,
  },
  together: { fields: ['model', 'input'], strict: true, base64: false, tokenInput: false },
  fireworks: {
    fields: ['model', 'input', 'dimensions', 'prompt_template', 'normalize'],
    strict: true,
    dimensions: 'dimensions',
    base64: false,
    tokenInput: true,
  },
  openrouter: { fields: [...OPENAI_FIELDS, 'provider'], strict: false, dimensions: 'dimensions', base64: true, tokenInput: true },
  vllm: { fields: [...OPENAI_FIELDS, 'truncate_prompt_tokens'], strict: true, dimensions: 'dimensions', base64: true, tokenInput: true },
  ollama: {
    fields: ['model', 'input', 'dimensions', 'encoding_format', 'truncate', 'keep_alive'],
    strict: true,
    dimensions: 'dimensions',
    base64: true,
    tokenInput: false,
  },
  lmstudio: { fields: ['model', 'input'], strict: true, base64: false, tokenInput: false },
  llamacpp: { fields: ['model', 'input', 'encoding_format', 'content'], strict: true, base64: true, tokenInput: true },
};

const isTokenArray = (value: unknown): boolean =>
  Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'number');

/** `POST /hosts/{host}/v1/embeddings`: the host's own refusals, then the OpenAI simulator's embeddings with its fields translated. */
export async function handleHostEmbeddings(req: IncomingMessage, res: ServerResponse, raw: Buffer, host: string): Promise<void> {
  if (!isHostName(host)) return sendJson(res, 404, { error: { message: `No simulated host ${host}`, type: 'not_found' } });
  const shape = HOST_RULES[host].errors;
  const rules = RULES[host];
  const fail = (status: number, message: string, param: string | null = null) =>
    sendJson(res, status, hostErrorBody(shape, status, message, param, null));
  if (!rules) return fail(404, `Unknown request URL: POST /v1/embeddings. ${host} serves no embeddings.`);
  const body = parseJsonObject(raw);
  if (!body) return fail(400, 'The request body is not valid JSON.');
  // Mistral's validation errors are 422s (extra_forbidden, wrong type); the others' 400s.
  const invalid = host === 'mistral' ? 422 : 400;
  if (rules.strict) {
    const unknown = Object.keys(body).find((field) => !rules.fields.includes(field));
    if (unknown) return fail(invalid, `Extra inputs are not permitted: body.${unknown}`, unknown);
  }
  const inputs: unknown[] = Array.isArray(body.input) && !isTokenArray(body.input) ? body.input : [body.input];
  if (!rules.tokenInput && inputs.some((input) => typeof input !== 'string'))
    return fail(invalid, 'Input should be a valid string: body.input', 'input');
  if (body.encoding_format !== undefined && !rules.base64 && body.encoding_format !== 'float')
    return fail(invalid, `encoding_format ${String(body.encoding_format)} is not supported`, 'encoding_format');
  const openai: Json = { model: body.model, input: body.input };
  if (rules.base64 && body.encoding_format !== undefined) openai.encoding_format = body.encoding_format;
  if (rules.dimensions && body[rules.dimensions] !== undefined) openai.dimensions = body[rules.dimensions];
  req.headers.authorization = 'Bearer sk-sim';
  return handleEmbeddings(req, res, Buffer.from(JSON.stringify(openai)));
}
