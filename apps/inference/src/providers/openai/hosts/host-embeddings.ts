import { GatewayError } from '@gw/errors';
import type { OpenAiHost } from './openai-hosts.js';

type Json = Record<string, unknown>;

/**
 * What an OpenAI-compatible host's `/embeddings` takes, as its API reference says (URLs in
 * docs/providers/openai-compatible-hosts.md); held to by the simulator's own copy. A host
 * absent from EMBEDDING_HOSTS has no embeddings endpoint.
 */
export interface HostEmbeddingsProfile {
  /** How a shortened vector is asked for (Mistral: `output_dimension`), or not at all. */
  dimensions: 'dimensions' | 'output_dimension' | false;
  /** `encoding_format` values the host takes; base64 asked of a float-only host is encoded by the gateway. */
  encodingFormats: ReadonlyArray<'float' | 'base64'>;
  /** Token-id arrays (`[1, 2]`, `[[1, 2]]`) as input, or strings only. */
  tokenInput: boolean;
  /** Inputs per request, where the host documents a limit. */
  maxInputs?: number;
  /** Whether `user` (the end user's hash) is taken; strict hosts refuse it, so it is left out. */
  user: boolean;
}

export const EMBEDDING_HOSTS: Partial<Record<OpenAiHost, HostEmbeddingsProfile>> = {
  // platform.openai.com/docs/api-reference/embeddings: at most 2048 inputs.
  openai: { dimensions: 'dimensions', encodingFormats: ['float', 'base64'], tokenInput: true, maxInputs: 2048, user: true },
  // docs.mistral.ai/api/endpoint/embeddings: model, input (strings), output_dimension, output_dtype, encoding_format; extras are 422.
  mistral: { dimensions: 'output_dimension', encodingFormats: ['float', 'base64'], tokenInput: false, user: false },
  // docs.together.ai/reference/embeddings: model and input (strings) only.
  together: { dimensions: false, encodingFormats: ['float'], tokenInput: false, user: false },
  // docs.fireworks.ai/api-reference/creates-an-embedding-vector: model, input, dimensions (Matryoshka models).
  fireworks: { dimensions: 'dimensions', encodingFormats: ['float'], tokenInput: true, user: false },
  // openrouter.ai/docs/api-reference/embeddings: OpenAI's body.
  openrouter: { dimensions: 'dimensions', encodingFormats: ['float', 'base64'], tokenInput: true, user: true },
  // docs.vllm.ai (OpenAI-compatible server, embedding API): OpenAI's body, `dimensions` on Matryoshka models.
  vllm: { dimensions: 'dimensions', encodingFormats: ['float', 'base64'], tokenInput: true, user: true },
  // github.com/ollama/ollama docs/openai.md: model, input (strings), encoding_format, dimensions.
  ollama: { dimensions: 'dimensions', encodingFormats: ['float', 'base64'], tokenInput: false, user: false },
  // lmstudio.ai/docs/app/api/endpoints/openai: model and input (strings).
  lmstudio: { dimensions: false, encodingFormats: ['float'], tokenInput: false, user: false },
  // llama.cpp tools/server README, /v1/embeddings: input (strings or tokens), encoding_format float|base64.
  llamacpp: { dimensions: false, encodingFormats: ['float', 'base64'], tokenInput: true, user: false },
};

const refused = (message: string, param: string) => new GatewayError(400, message, { errorType: 'invalid_request', metadata: { param } });

const isTokenArray = (value: unknown): boolean =>
  Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === 'number');

/**
 * The embeddings body (model already the upstream one) rewritten for `host`, or a 400 naming
 * what the host cannot do (a request is never answered as if a field had been honoured).
 * `encodeBase64`: the host returns floats and the gateway encodes them as the client asked.
 */
export function adaptEmbeddingsToHost(body: Json, host: OpenAiHost, providerId: string): { body: Json; encodeBase64: boolean } {
  const profile = EMBEDDING_HOSTS[host];
  if (!profile) throw refused(`Provider ${providerId} (${host}) has no embeddings endpoint`, 'model');
  const out: Json = { ...body };
  const inputs = Array.isArray(out.input) && !isTokenArray(out.input) ? (out.input as unknown[]) : [out.input];
  if (!profile.tokenInput && inputs.some(isTokenArray))
    throw refused(`Provider ${providerId} (${host}) embeds text only: token-id arrays as input are not supported`, 'input');
  if (profile.maxInputs !== undefined && inputs.length > profile.maxInputs)
    throw refused(`Provider ${providerId} (${host}) embeds at most ${profile.maxInputs} inputs per request, got ${inputs.length}`, 'input');
  if (out.dimensions !== undefined && out.dimensions !== null) {
    if (!profile.dimensions) throw refused(`Provider ${providerId} (${host}) does not support dimensions for embeddings`, 'dimensions');
    if (profile.dimensions !== 'dimensions') {
      out[profile.dimensions] = out.dimensions;
      delete out.dimensions;
    }
  }
  const encodeBase64 = out.encoding_format === 'base64' && !profile.encodingFormats.includes('base64');
  // A float-only host may refuse the field itself; floats are its default.
  if (!profile.encodingFormats.includes('base64')) delete out.encoding_format;
  if (!profile.user) delete out.user;
  return { body: out, encodeBase64 };
}

/** Float vectors as OpenAI's base64: little-endian float32 bytes. */
export function floatsToBase64(vector: readonly number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  vector.forEach((value, index) => bytes.writeFloatLE(value, index * 4));
  return bytes.toString('base64');
}
