import type { IncomingMessage, ServerResponse } from 'node:http';
import { verifySigV4 } from './bedrock-auth.ts';
import { sendBedrockError } from './bedrock.ts';
import { requestId } from './bedrock-render.ts';
import { embedVector } from './embeddings.ts';
import { faultStatus, parseDirectives } from './faults.ts';
import { sendJson, sleep } from './http.ts';
import { parseJsonObject } from './json.ts';
import { countTokens } from './tokens.ts';

/** Titan Text Embeddings V2's body members and output sizes. */
const TITAN_FIELDS = new Set(['inputText', 'dimensions', 'normalize', 'embeddingTypes']);
const TITAN_DIMENSIONS = new Set([256, 512, 1024]);
const MAX_TITAN_TOKENS = 8192;

/**
 * POST /bedrock/model/{modelId}/invoke for `amazon.titan-embed-text-v2:0` (InvokeModel with
 * Titan's own body): `{inputText, dimensions?, normalize?}` -> `{embedding, inputTextTokenCount}`.
 * Signed and strict like Converse; any other model id is a ValidationException here.
 */
export async function handleInvokeModel(
  req: IncomingMessage,
  res: ServerResponse,
  raw: Buffer,
  rawPath: string,
  query: URLSearchParams,
): Promise<void> {
  const modelId = decodeURIComponent(/^\/bedrock\/model\/([^/]+)\/invoke$/.exec(rawPath)![1]!);
  const authError = await verifySigV4(req, rawPath, query, raw, 'bedrock');
  if (authError) return sendBedrockError(res, authError.status, authError.type, authError.message);
  const { base, directives: d } = parseDirectives(modelId, req.headers);
  await sleep(d.latency);
  const status = faultStatus(d, modelId);
  if (status !== undefined)
    return sendBedrockError(res, status, status === 429 ? 'ThrottlingException' : 'InternalServerException', `Simulated ${status}.`);
  if (!base.startsWith('amazon.titan-embed-text-v2'))
    return sendBedrockError(res, 400, 'ValidationException', 'The provided model identifier is invalid.');
  const body = parseJsonObject(raw);
  if (!body) return sendBedrockError(res, 400, 'ValidationException', 'Malformed input request, please reformat your input and try again.');
  const extra = Object.keys(body).find((key) => !TITAN_FIELDS.has(key));
  if (extra)
    return sendBedrockError(
      res,
      400,
      'ValidationException',
      `Malformed input request: extraneous key [${extra}] is not permitted, please reformat your input and try again.`,
    );
  if (typeof body.inputText !== 'string' || body.inputText === '')
    return sendBedrockError(
      res,
      400,
      'ValidationException',
      'Malformed input request: #: required key [inputText] not found, please reformat your input and try again.',
    );
  const dimensions = body.dimensions ?? 1024;
  if (typeof dimensions !== 'number' || !TITAN_DIMENSIONS.has(dimensions))
    return sendBedrockError(
      res,
      400,
      'ValidationException',
      'Malformed input request: #/dimensions: 300 is not a valid enum value, please reformat your input and try again.'.replace(
        '300',
        String(dimensions),
      ),
    );
  const tokens = countTokens(body.inputText);
  if (tokens > Math.min(MAX_TITAN_TOKENS, d.context))
    return sendBedrockError(res, 400, 'ValidationException', 'Input is too long for requested model.');
  sendJson(
    res,
    200,
    { embedding: Array.from(embedVector(body.inputText, dimensions)), inputTextTokenCount: tokens },
    { 'x-amzn-requestid': requestId() },
  );
}
