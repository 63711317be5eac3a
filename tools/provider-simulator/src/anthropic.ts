import type { IncomingMessage, ServerResponse } from 'node:http';
import { validateCacheControl } from './anthropic-cache.ts';
import { countInputTokens, planMessage, refused } from './anthropic-plan.ts';
import { anthropicStreamErrorFrame, renderEvents, renderMessage } from './anthropic-render.ts';
import { anthropicError, sendAnthropicStatus, type AnthropicErrorBody } from './errors.ts';
import { faultStatus, parseDirectives } from './faults.ts';
import { cutBeforeBody, randomId, sendJson, sleep } from './http.ts';
import { isRecord, parseJsonObject, type Json } from './json.ts';
import { sendStream } from './sse.ts';

const invalid = (message: string): AnthropicErrorBody => anthropicError('invalid_request_error', message);

/**
 * 401 / 400 bodies for the key and `anthropic-version` headers. The key is `x-api-key`, or
 * `Authorization: Bearer <key>` (what @anthropic-ai/sdk >= 1.x sends for `apiKey`).
 */
export function checkAnthropicHeaders(req: IncomingMessage): { status: number; body: AnthropicErrorBody } | undefined {
  const header = req.headers['x-api-key'];
  const key =
    typeof header === 'string' && header.trim() !== ''
      ? header.trim()
      : /^Bearer\s+(.+)$/i.exec(req.headers.authorization ?? '')?.[1]?.trim();
  if (!key) {
    return { status: 401, body: anthropicError('authentication_error', 'x-api-key header is required') };
  }
  if (key === 'sk-ant-sim-invalid') return { status: 401, body: anthropicError('authentication_error', 'invalid x-api-key') };
  const version = req.headers['anthropic-version'];
  if (typeof version !== 'string' || version.trim() === '') return { status: 400, body: invalid('anthropic-version: header is required') };
  return undefined;
}

/** The betas a request names in `anthropic-beta` (comma-separated, possibly repeated). */
export function betasOf(req: IncomingMessage): Set<string> {
  const raw = req.headers['anthropic-beta'];
  const values = Array.isArray(raw) ? raw : raw === undefined ? [] : [raw];
  return new Set(values.flatMap((value) => value.split(',').map((name) => name.trim())).filter(Boolean));
}

/** `system` messages inside `messages` need this beta; without it Anthropic refuses them. */
export const MID_CONVERSATION_SYSTEM_BETA = 'mid-conversation-system-2026-04-07';
/** `context_management` needs this beta; without it the field is unknown. */
export const CONTEXT_MANAGEMENT_BETA = 'context-management-2025-06-27';

function validateMessages(body: Json, betas: ReadonlySet<string>): AnthropicErrorBody | undefined {
  const messages = body.messages;
  if (messages === undefined) return invalid('messages: Field required');
  if (!Array.isArray(messages)) return invalid('messages: Input should be a valid list');
  if (messages.length === 0) return invalid('messages: at least one message is required');
  for (let i = 0; i < messages.length; i++) {
    const m: unknown = messages[i];
    if (!isRecord(m)) return invalid(`messages.${i}: Input should be a valid dictionary`);
    if (m.role === 'system' && betas.has(MID_CONVERSATION_SYSTEM_BETA)) {
      if (typeof m.content !== 'string' && !Array.isArray(m.content)) return invalid(`messages.${i}.content: Field required`);
      continue;
    }
    if (m.role === 'system') {
      return invalid(
        'messages: Unexpected role "system". The Messages API accepts a top-level `system` parameter, not "system" as an input message role.',
      );
    }
    if (m.role !== 'user' && m.role !== 'assistant') return invalid(`messages.${i}.role: Input should be 'user' or 'assistant'`);
    if (typeof m.content !== 'string' && !Array.isArray(m.content)) return invalid(`messages.${i}.content: Field required`);
  }
  return undefined;
}

/** The Messages API's top-level fields; Anthropic refuses any other ("Extra inputs are not permitted"). */
export const ANTHROPIC_FIELDS = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'metadata',
  'stop_sequences',
  'stream',
  'temperature',
  'top_p',
  'top_k',
  'tools',
  'tool_choice',
  'thinking',
  'service_tier',
  'output_config',
  'container',
  'mcp_servers',
  'context_management',
  'cache_control',
  'speed',
  'inference_geo',
]);

/** `speed` and `inference_geo` as Anthropic types them. */
function validateSpeedAndGeo(body: Json): AnthropicErrorBody | undefined {
  if (body.speed !== undefined && body.speed !== null && body.speed !== 'standard' && body.speed !== 'fast')
    return invalid("speed: Input should be 'standard' or 'fast'");
  if (body.inference_geo !== undefined && body.inference_geo !== null && typeof body.inference_geo !== 'string')
    return invalid('inference_geo: Input should be a valid string');
  return undefined;
}

/** Structured outputs: `output_config: {format: {type: "json_schema", schema}}` (and `effort`). */
function validateOutputConfig(config: unknown): AnthropicErrorBody | undefined {
  if (config === undefined) return undefined;
  if (!isRecord(config)) return invalid('output_config: Input should be a valid dictionary');
  const extra = Object.keys(config).find((field) => field !== 'format' && field !== 'effort');
  if (extra !== undefined) return invalid(`output_config.${extra}: Extra inputs are not permitted`);
  const format = config.format;
  if (format === undefined || format === null) return undefined;
  if (!isRecord(format) || format.type !== 'json_schema') return invalid("output_config.format.type: Input should be 'json_schema'");
  if (!isRecord(format.schema)) return invalid('output_config.format.schema: Field required');
  return undefined;
}

export function validateRequest(body: Json, betas: ReadonlySet<string> = new Set()): AnthropicErrorBody | undefined {
  const extra = Object.keys(body).find((field) => !ANTHROPIC_FIELDS.has(field));
  if (extra !== undefined) return invalid(`${extra}: Extra inputs are not permitted`);
  if (body.context_management !== undefined && !betas.has(CONTEXT_MANAGEMENT_BETA))
    return invalid('context_management: Extra inputs are not permitted');
  if (isRecord(body.metadata)) {
    const extraMetadata = Object.keys(body.metadata).find((field) => field !== 'user_id');
    if (extraMetadata !== undefined) return invalid(`metadata.${extraMetadata}: Extra inputs are not permitted`);
  }
  if (typeof body.model !== 'string' || body.model === '') return invalid('model: Field required');
  if (body.service_tier !== undefined && body.service_tier !== 'auto' && body.service_tier !== 'standard_only') {
    return invalid("service_tier: Input should be 'auto' or 'standard_only'");
  }
  const formatError = validateOutputConfig(body.output_config) ?? validateSpeedAndGeo(body);
  if (formatError) return formatError;
  const cacheError = validateCacheControl(body);
  if (cacheError) return invalid(cacheError);
  const max = body.max_tokens;
  if (max === undefined) return invalid('max_tokens: Field required');
  if (typeof max !== 'number' || !Number.isInteger(max)) return invalid('max_tokens: Input should be a valid integer');
  if (max < 1) return invalid('max_tokens: Input should be greater than or equal to 1');
  const messagesError = validateMessages(body, betas);
  if (messagesError) return messagesError;
  const t = body.temperature;
  if (t !== undefined && (typeof t !== 'number' || t < 0 || t > 1)) return invalid('temperature: Input should be less than or equal to 1');
  if (isRecord(body.thinking) && body.thinking.type === 'enabled') {
    const budget = body.thinking.budget_tokens;
    if (typeof budget !== 'number' || !Number.isInteger(budget)) return invalid('thinking.enabled.budget_tokens: Field required');
    if (budget < 1024) return invalid('thinking.enabled.budget_tokens: Input should be greater than or equal to 1024');
    if (max <= budget) {
      return invalid(
        '`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size',
      );
    }
  }
  if (Array.isArray(body.tools)) {
    for (let i = 0; i < body.tools.length; i++) {
      const tool: unknown = body.tools[i];
      if (!isRecord(tool) || typeof tool.name !== 'string') return invalid(`tools.${i}.name: Field required`);
    }
  }
  return undefined;
}

/** JSON parse, directives, latency, headers, faults. Undefined when a response was already sent. */
async function preamble(req: IncomingMessage, res: ServerResponse, raw: Buffer) {
  const body = parseJsonObject(raw);
  if (!body) {
    sendJson(res, 400, invalid('There was an error parsing the body of your request.'));
    return undefined;
  }
  const { base, directives } = parseDirectives(body.model, req.headers);
  await sleep(directives.latency);
  const headerError = checkAnthropicHeaders(req);
  if (headerError) {
    sendJson(res, headerError.status, headerError.body);
    return undefined;
  }
  const status = faultStatus(directives, body.model);
  if (status !== undefined) {
    sendAnthropicStatus(res, status, base, directives.retryAfter);
    return undefined;
  }
  return { body, base, directives };
}

export async function handleMessages(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
  const pre = await preamble(req, res, raw);
  if (!pre) return;
  const { body, base, directives: d } = pre;
  const error = validateRequest(body, betasOf(req));
  if (error) return sendJson(res, 400, error);
  const inputTokens = countInputTokens(body);
  if (inputTokens > d.context) return sendJson(res, 400, invalid(`prompt is too long: ${inputTokens} tokens > ${d.context} maximum`));
  const headers = { 'request-id': `req_${randomId(24)}` };
  const stream = body.stream === true;
  if (!stream && d.cut !== undefined) return cutBeforeBody(res, headers);
  const plan = refused(planMessage(body, d, inputTokens), d);
  const id = `msg_${randomId(24)}`;
  if (!stream) return sendJson(res, 200, renderMessage(plan, id, base), headers);
  await sendStream(res, renderEvents(plan, id, base), {
    chunkDelay: d.chunkDelay,
    cut: d.cut,
    errorAfter: d.streamError,
    errorFrame: anthropicStreamErrorFrame(),
    headers,
  });
}

/** What the count endpoint takes: a message's input, without max_tokens, stream or sampling. */
const COUNT_TOKENS_FIELDS = new Set([
  'model',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'thinking',
  'output_config',
  'context_management',
  'mcp_servers',
  'cache_control',
  'speed',
]);

/** POST /v1/messages/count_tokens */
export async function handleCountTokens(req: IncomingMessage, res: ServerResponse, raw: Buffer): Promise<void> {
  const pre = await preamble(req, res, raw);
  if (!pre) return;
  const { body } = pre;
  const extra = Object.keys(body).find((field) => !COUNT_TOKENS_FIELDS.has(field));
  if (extra !== undefined) return sendJson(res, 400, invalid(`${extra}: Extra inputs are not permitted`));
  if (typeof body.model !== 'string' || body.model === '') return sendJson(res, 400, invalid('model: Field required'));
  const betas = betasOf(req);
  if (body.context_management !== undefined && !betas.has(CONTEXT_MANAGEMENT_BETA))
    return sendJson(res, 400, invalid('context_management: Extra inputs are not permitted'));
  const formatError = validateOutputConfig(body.output_config);
  if (formatError) return sendJson(res, 400, formatError);
  const error = validateMessages(body, betas);
  if (error) return sendJson(res, 400, error);
  sendJson(res, 200, { input_tokens: countInputTokens(body) });
}
