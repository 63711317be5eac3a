import type { IncomingMessage, ServerResponse } from 'node:http';
import { embedVector } from './embeddings.ts';
import { faultStatus, parseDirectives, type Directives } from './faults.ts';
import { hasValidAccessToken } from './gemini-auth.ts';
import { answerParts, asMessagesBody, finishReasonOf, planGemini, usageOf, type GeminiPlan } from './gemini-plan.ts';
import { googleError, invalidArgument, validateGenerateContent, type GoogleError } from './gemini-validate.ts';
import { countInputTokens } from './anthropic-plan.ts';
import { cutBeforeBody, randomId, sendJson, sleep } from './http.ts';
import { isRecord, parseJsonObject, type Json } from './json.ts';
import { dataFrame, sendStream, type Frame } from './sse.ts';
import { predictEmbeddings } from './vertex-predict.ts';

/** Which API a call came through: the Gemini API (an API key) or Vertex AI (an access token). */
export interface GeminiCall {
  model: string;
  method: string;
  vertex: boolean;
  query: URLSearchParams;
}

/**
 * `/v1beta/models/{model}:{method}` (also under `/gemini`), or Vertex AI's
 * `/vertex/v1/projects/{p}/locations/{l}/publishers/google/models/{model}:{method}`.
 */
export function geminiCallOf(path: string, query: URLSearchParams): GeminiCall | undefined {
  const gemini = /^(?:\/gemini)?\/v1(?:beta)?\/models\/(.+):([A-Za-z]+)$/.exec(path);
  if (gemini) return { model: decodeURIComponent(gemini[1]!), method: gemini[2]!, vertex: false, query };
  const vertex = /^\/vertex\/v1(?:beta1)?\/projects\/[^/]+\/locations\/[^/]+\/publishers\/google\/models\/([^/]+):([A-Za-z]+)$/.exec(path);
  if (vertex) return { model: decodeURIComponent(vertex[1]!), method: vertex[2]!, vertex: true, query };
  return undefined;
}

const KEY_INVALID = 'sim-gemini-invalid';

function authError(req: IncomingMessage, call: GeminiCall): GoogleError | undefined {
  if (call.vertex) {
    const state = hasValidAccessToken(req);
    if (state === 'missing')
      return googleError(
        401,
        'UNAUTHENTICATED',
        'Request is missing required authentication credential. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      );
    if (state === 'invalid')
      return googleError(
        401,
        'UNAUTHENTICATED',
        'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
      );
    return undefined;
  }
  const header = req.headers['x-goog-api-key'];
  const key = (typeof header === 'string' ? header : undefined) ?? call.query.get('key') ?? undefined;
  if (!key)
    return googleError(
      403,
      'PERMISSION_DENIED',
      "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
    );
  if (key === KEY_INVALID)
    return googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
      { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
    ]);
  return undefined;
}

/** Google's error body for a `status` fault; a 429 says when to come back in RetryInfo, as Google does (no Retry-After). */
export function googleErrorForStatus(status: number, model: string, retryAfter: number | undefined): GoogleError {
  switch (status) {
    case 400:
      return invalidArgument('Request contains an invalid argument.');
    case 401:
      return googleError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.');
    case 403:
      return googleError(403, 'PERMISSION_DENIED', 'The caller does not have permission');
    case 404:
      return googleError(404, 'NOT_FOUND', `models/${model} is not found for API version v1beta, or is not supported for generateContent.`);
    case 429:
      return googleError(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota, please check your plan and billing details.', [
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfter ?? 1}s` },
      ]);
    case 503:
    case 529:
      return googleError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.');
    case 504:
      return googleError(504, 'DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.');
    default:
      return status < 500
        ? googleError(status, 'FAILED_PRECONDITION', `Request failed (simulated ${status}).`)
        : googleError(
            500,
            'INTERNAL',
            'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting',
          );
  }
}

/** JSON, directives, latency, auth, faults: the order every simulated provider checks them in. */
async function preamble(req: IncomingMessage, res: ServerResponse, raw: Buffer, call: GeminiCall) {
  const body = parseJsonObject(raw);
  if (!body) {
    sendJson(res, 400, invalidArgument('Invalid JSON payload received. Unexpected token.'));
    return undefined;
  }
  const { base, directives } = parseDirectives(call.model, req.headers);
  await sleep(directives.latency);
  const auth = authError(req, call);
  if (auth) {
    sendJson(res, auth.error.code, auth);
    return undefined;
  }
  const status = faultStatus(directives, call.model);
  if (status !== undefined) {
    const error = googleErrorForStatus(status, base, directives.retryAfter);
    sendJson(res, error.error.code, error);
    return undefined;
  }
  return { body, base, d: directives };
}

export async function handleGemini(req: IncomingMessage, res: ServerResponse, raw: Buffer, call: GeminiCall): Promise<void> {
  switch (call.method) {
    case 'generateContent':
      return generate(req, res, raw, call, false);
    case 'streamGenerateContent':
      return generate(req, res, raw, call, true);
    case 'countTokens':
      return countTokensRoute(req, res, raw, call);
    case 'embedContent':
    case 'batchEmbedContents':
      return embed(req, res, raw, call);
    case 'predict':
      return predict(req, res, raw, call);
    default:
      req.resume();
      return sendJson(res, 404, googleError(404, 'NOT_FOUND', `Method not found: ${call.method}`));
  }
}

async function generate(req: IncomingMessage, res: ServerResponse, raw: Buffer, call: GeminiCall, stream: boolean): Promise<void> {
  const pre = await preamble(req, res, raw, call);
  if (!pre) return;
  const { body, base, d } = pre;
  if (stream && call.query.get('alt') !== 'sse')
    return sendJson(res, 400, invalidArgument('The simulator streams Server-Sent Events only: add ?alt=sse (as @google/genai does).'));
  const error = validateGenerateContent(body, call.vertex);
  if (error) return sendJson(res, 400, error);
  const plan = planGemini(body, d);
  if (plan.promptTokens > d.context)
    return sendJson(
      res,
      400,
      invalidArgument(`The input token count (${plan.promptTokens}) exceeds the maximum number of tokens allowed (${d.context}).`),
    );
  const responseId = randomId(22);
  if (!stream && d.cut !== undefined) return cutBeforeBody(res);
  if (!stream) return sendJson(res, 200, render(plan, d, base, responseId));
  // Vertex AI only: each function call's arguments as partialArgs by JSON path, over several frames.
  const calling = isRecord(body.toolConfig) && isRecord(body.toolConfig.functionCallingConfig) ? body.toolConfig.functionCallingConfig : {};
  const partialArgs = call.vertex && calling.streamFunctionCallArguments === true;
  await sendStream(res, frames(plan, d, base, responseId, partialArgs), {
    chunkDelay: d.chunkDelay,
    cut: d.cut,
    errorAfter: d.streamError,
    errorFrame: dataFrame(googleErrorForStatus(503, base, undefined)),
  });
}

function blocked(plan: GeminiPlan, d: Directives, model: string, responseId: string): Json {
  return {
    promptFeedback: {
      blockReason: 'SAFETY',
      safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', blocked: true }],
    },
    usageMetadata: { promptTokenCount: plan.promptTokens, totalTokenCount: plan.promptTokens },
    modelVersion: model,
    responseId,
  };
}

function render(plan: GeminiPlan, d: Directives, model: string, responseId: string): Json {
  if (d.safetyBlock === 1) return blocked(plan, d, model, responseId);
  const stopped = d.safetyBlock === 2;
  return {
    candidates: [
      {
        content: { role: 'model', parts: stopped ? [] : answerParts(plan).map(({ part }) => part) },
        finishReason: stopped ? 'SAFETY' : finishReasonOf(plan),
        ...(stopped ? { safetyRatings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'HIGH', blocked: true }] } : {}),
        index: 0,
      },
    ],
    usageMetadata: usageOf(plan, d.cached),
    modelVersion: model,
    responseId,
  };
}

/** One frame per streamed piece (3 tokens a frame, as Gemini sends small chunks); the last carries the finish reason and usage. */
function frames(plan: GeminiPlan, d: Directives, model: string, responseId: string, partialArgs = false): Frame[] {
  if (d.safetyBlock === 1) return [dataFrame(blocked(plan, d, model, responseId), true)];
  const out: Frame[] = [];
  const chunk = (parts: Json[], extra: Json = {}) => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
    usageMetadata: { promptTokenCount: plan.promptTokens, totalTokenCount: plan.promptTokens },
    modelVersion: model,
    responseId,
  });
  if (d.safetyBlock !== 2) {
    for (const { part, pieces } of answerParts(plan)) {
      if (typeof part.text !== 'string') {
        const parts = partialArgs && isRecord(part.functionCall) ? streamedCallParts(part) : [part];
        for (const one of parts) out.push(dataFrame(chunk([one]), true));
        continue;
      }
      for (let i = 0; i < pieces.length; i += 3) out.push(dataFrame(chunk([{ ...part, text: pieces.slice(i, i + 3).join('') }]), true));
    }
  }
  const last = chunk([], { finishReason: d.safetyBlock === 2 ? 'SAFETY' : finishReasonOf(plan) });
  out.push(dataFrame({ ...last, usageMetadata: usageOf(plan, d.cached) }));
  return out;
}

/**
 * A function call as Vertex AI streams it when asked (streamFunctionCallArguments): a part naming
 * it with `willContinue`, then each argument by its JSON path (RFC 9535) as `partialArgs`, a string
 * in pieces (`willContinue` on all but its last), then an empty functionCall: no more to follow.
 */
function streamedCallParts(part: Json): Json[] {
  const call = part.functionCall as Json;
  // The first part keeps what else the whole call's part had (its thought signature).
  const out: Json[] = [{ ...part, functionCall: { name: call.name, willContinue: true } }];
  const visit = (value: unknown, path: string): void => {
    if (Array.isArray(value)) return value.forEach((item, i) => visit(item, `${path}[${i}]`));
    if (isRecord(value)) {
      for (const [key, item] of Object.entries(value))
        visit(item, /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key).replace(/^"|"$/g, "'")}]`);
      return;
    }
    const partial = (arg: Json) => out.push({ functionCall: { partialArgs: [{ jsonPath: path, ...arg }], willContinue: true } });
    if (typeof value === 'string') {
      const pieces = value.match(/[\s\S]{1,8}/g) ?? [''];
      pieces.forEach((piece, i) => partial({ stringValue: piece, ...(i < pieces.length - 1 ? { willContinue: true } : {}) }));
    } else if (typeof value === 'number') partial({ numberValue: value });
    else if (typeof value === 'boolean') partial({ boolValue: value });
    else partial({ nullValue: 'NULL_VALUE' });
  };
  visit(call.args ?? {}, '$');
  out.push({ functionCall: {} });
  return out;
}

const GEMINI_COUNT_FIELDS = new Set(['contents', 'generateContentRequest']);
const VERTEX_COUNT_FIELDS = new Set(['model', 'contents', 'systemInstruction', 'tools', 'generationConfig', 'instances']);

async function countTokensRoute(req: IncomingMessage, res: ServerResponse, raw: Buffer, call: GeminiCall): Promise<void> {
  const pre = await preamble(req, res, raw, call);
  if (!pre) return;
  const { body } = pre;
  // The Gemini API counts `contents` or a whole `generateContentRequest`; Vertex AI takes the request's fields at the top.
  const fields = call.vertex ? VERTEX_COUNT_FIELDS : GEMINI_COUNT_FIELDS;
  const extra = Object.keys(body).find((field) => !fields.has(field));
  if (extra) return sendJson(res, 400, invalidArgument(`Invalid JSON payload received. Unknown name "${extra}": Cannot find field.`));
  const request = isRecord(body.generateContentRequest) ? body.generateContentRequest : body;
  const error = validateGenerateContent(request, call.vertex);
  if (error) return sendJson(res, 400, error);
  sendJson(res, 200, { totalTokens: countInputTokens(asMessagesBody(request)) });
}

const EMBED_FIELDS = new Set(['model', 'content', 'taskType', 'title', 'outputDimensionality']);

function embedding(request: Json): { values: number[] } | GoogleError {
  const extra = Object.keys(request).find((field) => !EMBED_FIELDS.has(field));
  if (extra) return invalidArgument(`Invalid JSON payload received. Unknown name "${extra}": Cannot find field.`);
  const parts = isRecord(request.content) && Array.isArray(request.content.parts) ? request.content.parts.filter(isRecord) : [];
  const text = parts.map((p) => (typeof p.text === 'string' ? p.text : '')).join(' ');
  if (!text) return invalidArgument('* EmbedContentRequest.content: contents must not be empty\n');
  const dimensions = typeof request.outputDimensionality === 'number' ? request.outputDimensionality : 16;
  return { values: Array.from(embedVector(text, dimensions)) };
}

/** `:predict` is Vertex AI's (embeddings on text-embedding models, vertex-predict.ts). */
async function predict(req: IncomingMessage, res: ServerResponse, raw: Buffer, call: GeminiCall): Promise<void> {
  if (!call.vertex) {
    req.resume();
    return sendJson(res, 404, googleError(404, 'NOT_FOUND', `Method not found: ${call.method}`));
  }
  const pre = await preamble(req, res, raw, call);
  if (pre) predictEmbeddings(res, pre.base, pre.body);
}

/** embedContent / batchEmbedContents (Gemini API only; Vertex serves embeddings through `:predict`). */
async function embed(req: IncomingMessage, res: ServerResponse, raw: Buffer, call: GeminiCall): Promise<void> {
  if (call.vertex) {
    req.resume();
    return sendJson(res, 404, googleError(404, 'NOT_FOUND', `Method not found: ${call.method}`));
  }
  const pre = await preamble(req, res, raw, call);
  if (!pre) return;
  const { body } = pre;
  if (call.method === 'embedContent') {
    const result = embedding(body);
    return 'error' in result ? sendJson(res, 400, result) : sendJson(res, 200, { embedding: result });
  }
  if (Object.keys(body).some((field) => field !== 'requests') || !Array.isArray(body.requests) || body.requests.length === 0)
    return sendJson(res, 400, invalidArgument('* BatchEmbedContentsRequest.requests: requests must not be empty\n'));
  const embeddings: Array<{ values: number[] }> = [];
  for (const request of body.requests.filter(isRecord)) {
    const result = embedding(request);
    if ('error' in result) return sendJson(res, 400, result);
    embeddings.push(result);
  }
  sendJson(res, 200, { embeddings });
}
