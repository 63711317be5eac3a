import type { IncomingMessage, ServerResponse } from 'node:http';
import { countInputTokens, planMessage } from './anthropic-plan.ts';
import { verifySigV4 } from './bedrock-auth.ts';
import { sendEventStream } from './bedrock-stream.ts';
import { exceptionFrame, renderConverse, renderConverseEvents, requestId, type ConverseStop } from './bedrock-render.ts';
import { toAnthropicBody } from './bedrock-translate.ts';
import { validateConverse } from './bedrock-validate.ts';
import { faultStatus, parseDirectives, type Directives } from './faults.ts';
import { cutBeforeBody, sendJson, sleep } from './http.ts';
import { parseJsonObject, type Json } from './json.ts';

/** Bedrock's exception for each status the `status` directive may ask for. */
const EXCEPTIONS: Record<number, [string, string]> = {
  400: ['ValidationException', 'Invalid request (simulated).'],
  403: ['AccessDeniedException', "You don't have access to the model with the specified model ID."],
  404: ['ResourceNotFoundException', 'Could not resolve the foundation model from the provided model identifier.'],
  408: ['ModelTimeoutException', 'Model has timed out in processing the request. Try your request again.'],
  424: ['ModelErrorException', 'The system encountered an unexpected error during processing. Try your request again.'],
  429: ['ThrottlingException', 'Too many requests, please wait before trying again.'],
  500: ['InternalServerException', 'The server encountered an internal error while processing the request.'],
  503: ['ServiceUnavailableException', 'Bedrock is unable to process your request.'],
};

/** Model ids (and inference profile ids, `us.` / `eu.` / `apac.` / `global.`) of the families Bedrock serves. */
const MODEL_ID = /^((us|eu|apac|global)\.)?(anthropic|amazon|meta|mistral|cohere|ai21|deepseek|openai|qwen|writer)\.[A-Za-z0-9._:-]+$/;

export function sendBedrockError(
  res: ServerResponse,
  status: number,
  type: string,
  message: string,
  headers?: Record<string, string>,
): void {
  sendJson(
    res,
    status,
    { message },
    { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`, 'x-amzn-requestid': requestId(), ...headers },
  );
}

/**
 * A guardrail the simulated account has: it blocks any prompt that says "forbidden", or as the
 * `safety-block` directive asks (1: the prompt, 2: the answer).
 */
function guardrailVerdict(body: Json, anthropic: Json, d: Directives): { blocked: boolean; trace?: Json } {
  const config = body.guardrailConfig as Json | undefined;
  if (!config) return { blocked: false };
  const text = JSON.stringify(anthropic.messages);
  const blocked = /\bforbidden\b/i.test(text) || d.safetyBlock === 1 || d.safetyBlock === 2;
  const assessment = { topicPolicy: { topics: [{ name: 'Forbidden', type: 'DENY', action: blocked ? 'BLOCKED' : 'NONE' }] } };
  const trace =
    config.trace === 'enabled' || config.trace === 'enabled_full'
      ? d.safetyBlock === 2
        ? { guardrail: { outputAssessments: { [String(config.guardrailIdentifier)]: [assessment] } } }
        : { guardrail: { inputAssessment: { [String(config.guardrailIdentifier)]: assessment } } }
      : undefined;
  return { blocked, trace };
}

/** POST /bedrock/model/{modelId}/converse and /converse-stream */
export async function handleConverse(
  req: IncomingMessage,
  res: ServerResponse,
  raw: Buffer,
  rawPath: string,
  query: URLSearchParams,
): Promise<void> {
  const m = /^\/bedrock\/model\/([^/]+)\/(converse|converse-stream)$/.exec(rawPath)!;
  const modelId = decodeURIComponent(m[1]!);
  const stream = m[2] === 'converse-stream';
  const authError = await verifySigV4(req, rawPath, query, raw, 'bedrock');
  if (authError) return sendBedrockError(res, authError.status, authError.type, authError.message);
  const body = parseJsonObject(raw);
  if (!body) return sendBedrockError(res, 400, 'SerializationException', 'Unexpected token in the request body.');
  const { base, directives: d } = parseDirectives(modelId, req.headers);
  await sleep(d.latency);
  const status = faultStatus(d, modelId);
  if (status !== undefined) {
    const named = /;bedrock-error=([A-Za-z]+)/.exec(modelId)?.[1];
    const [type, message] = named ? [named, `${named} (simulated).`] : (EXCEPTIONS[status] ?? EXCEPTIONS[500]!);
    const wait = d.retryAfter !== undefined ? { 'retry-after': String(d.retryAfter) } : undefined;
    return sendBedrockError(res, status, type, message, wait);
  }
  if (!MODEL_ID.test(base)) return sendBedrockError(res, 400, 'ValidationException', 'The provided model identifier is invalid.');
  const invalid = validateConverse(body, base);
  if (invalid) return sendBedrockError(res, 400, 'ValidationException', invalid);
  const anthropic = toAnthropicBody(body);
  const inputTokens = countInputTokens(anthropic);
  if (inputTokens > d.context) return sendBedrockError(res, 400, 'ValidationException', 'Input is too long for requested model.');
  const headers = { 'x-amzn-requestid': requestId() };
  if (!stream && d.cut !== undefined) return cutBeforeBody(res, headers);
  const verdict = guardrailVerdict(body, anthropic, d);
  let plan = planMessage(anthropic, d, inputTokens);
  let stop: ConverseStop = plan.stopReason;
  if (verdict.blocked) {
    const text = 'Sorry, the model cannot answer this question.';
    plan = { ...plan, content: [{ type: 'text', text }], pieces: [[text]], outputTokens: 0 };
    stop = 'guardrail_intervened';
  }
  if (!stream) return sendJson(res, 200, renderConverse(plan, stop, verdict.trace), headers);
  await sendEventStream(res, renderConverseEvents(plan, stop, verdict.trace), {
    chunkDelay: d.chunkDelay,
    cut: d.cut,
    errorAfter: d.streamError,
    errorFrame: exceptionFrame('modelStreamErrorException', 'The model stopped in the middle of its answer (simulated).'),
    headers,
  });
}
