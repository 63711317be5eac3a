import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { isRecord, type Json } from '../json.ts';
import type { ErrorShape, HostName, HostRules } from './host-rules.ts';

/** An error body in the host's own shape. */
export function hostErrorBody(shape: ErrorShape, status: number, message: string, param: string | null, code: string | null): Json {
  const type =
    status === 401
      ? 'authentication_error'
      : status === 429
        ? 'rate_limit_error'
        : status >= 500
          ? 'server_error'
          : 'invalid_request_error';
  switch (shape) {
    case 'string':
      return { error: message };
    case 'mistral':
      return { object: 'error', message: status === 422 ? { detail: validationDetail(message) } : message, type, param, code };
    case 'vllm':
      return { object: 'error', message, type: status >= 500 ? 'InternalServerError' : 'BadRequestError', param, code: status };
    case 'numeric-code':
      if (code === 'context_length_exceeded')
        return {
          error: {
            code: status,
            message: 'the request exceeds the available context size, try increasing it',
            type: 'exceed_context_size_error',
          },
        };
      return { error: { code: status, message, type, metadata: {} } };
    case 'openai':
      return { error: { message, type, param, code } };
  }
}

/** A refusal's FastAPI detail list, or the message as one entry when it is plain text. */
function validationDetail(message: string): unknown {
  try {
    return JSON.parse(message) as unknown;
  } catch {
    return [{ type: 'value_error', loc: ['body'], msg: message }];
  }
}

const SEARCH_RESULTS = [
  { title: 'Simulated source one', url: 'https://example.com/one', date: '2026-11-01' },
  { title: 'Simulated source two', url: 'https://example.com/two', date: '2026-11-02' },
];

/**
 * Rewrites what the OpenAI simulator sends into the host's shape: error bodies (and Cerebras's
 * rate-limit headers), the reasoning field's name, Mistral's tool call ids, each host's usage,
 * Perplexity's citations, OpenRouter's keep-alive comment.
 */
export function rewriteResponses(res: ServerResponse, host: HostName, rules: HostRules, request: { model: string }): void {
  let status = 200;
  let started = false;
  const writeHead = res.writeHead.bind(res);
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  res.writeHead = ((code: number, headers?: Record<string, unknown>) => {
    status = code;
    const { 'content-length': _length, ...rest } = headers ?? {};
    if (code === 429 && rules.rateLimitHeadersOnly) {
      const wait = String(rest['retry-after'] ?? '1');
      delete rest['retry-after'];
      Object.assign(rest, {
        'x-ratelimit-remaining-tokens-minute': '0',
        'x-ratelimit-reset-tokens-minute': wait,
        'x-ratelimit-remaining-requests-day': '14399',
      });
    }
    return writeHead(code, rest as never);
  }) as never;
  const transform = (text: string): string => {
    let out = text;
    if (status >= 400 && !text.startsWith('data: ')) {
      try {
        const error = (JSON.parse(text) as { error?: Json }).error ?? {};
        const body = hostErrorBody(
          rules.errors,
          status,
          String(error.message ?? ''),
          (error.param as string | null) ?? null,
          (error.code as string | null) ?? null,
        );
        return JSON.stringify(body);
      } catch {
        return text;
      }
    }
    if (!text.startsWith('data: ') && !text.includes('\ndata: ')) {
      try {
        out = JSON.stringify(rewriteAnswer(JSON.parse(text) as Json, host, rules, request.model));
      } catch {
        return text;
      }
    } else {
      out = text.replace(
        /^data: (\{.*\})$/gm,
        (_line, payload: string) => `data: ${JSON.stringify(rewriteAnswer(JSON.parse(payload) as Json, host, rules, request.model))}`,
      );
    }
    if (!started && host === 'openrouter' && status < 400 && text.startsWith('data: ')) out = `: OPENROUTER PROCESSING\n\n${out}`;
    started = true;
    return out;
  };
  res.write = ((chunk: unknown, ...rest: unknown[]) =>
    write(typeof chunk === 'string' ? transform(chunk) : chunk, ...(rest as []))) as never;
  res.end = ((chunk?: unknown, ...rest: unknown[]) =>
    end(typeof chunk === 'string' && chunk !== '' ? transform(chunk) : chunk, ...(rest as []))) as never;
}

/** One completion or chunk in the host's shape. */
function rewriteAnswer(json: Json, host: HostName, rules: HostRules, model: string): Json {
  if (!Array.isArray(json.choices)) return json;
  for (const choice of json.choices.filter(isRecord)) {
    for (const key of ['message', 'delta'] as const) {
      const message = choice[key];
      if (!isRecord(message)) continue;
      if (rules.reasoningField === 'reasoning_content' && 'reasoning' in message) {
        message.reasoning_content = message.reasoning;
        delete message.reasoning;
      }
      if (host === 'mistral' && Array.isArray(message.tool_calls))
        for (const call of message.tool_calls.filter(isRecord)) if (typeof call.id === 'string') call.id = mistralToolCallId(call.id);
    }
  }
  if (host === 'perplexity') {
    json.citations = SEARCH_RESULTS.map((result) => result.url);
    json.search_results = SEARCH_RESULTS;
  }
  if (isRecord(json.usage)) json.usage = hostUsage(json.usage, rules, model);
  return json;
}

function hostUsage(usage: Json, rules: HostRules, _model: string): Json {
  const prompt = Number(usage.prompt_tokens);
  const completion = Number(usage.completion_tokens);
  const cached = Number((usage.prompt_tokens_details as Json | undefined)?.cached_tokens ?? 0);
  const reasoning = Number((usage.completion_tokens_details as Json | undefined)?.reasoning_tokens ?? 0);
  switch (rules.usage) {
    case 'deepseek':
      return {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        prompt_cache_hit_tokens: cached,
        prompt_cache_miss_tokens: prompt - cached,
        completion_tokens_details: { reasoning_tokens: reasoning },
      };
    case 'xai':
      // xAI counts reasoning apart: completion_tokens is the answer alone, total adds the reasoning.
      return { ...usage, completion_tokens: completion - reasoning, total_tokens: prompt + completion };
    case 'perplexity':
      return {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        search_context_size: 'low',
        num_search_queries: 1,
        ...(reasoning > 0 ? { reasoning_tokens: reasoning } : {}),
      };
    case undefined:
      return usage;
  }
}

/** The 9-character id Mistral gives a tool call (the same OpenAI id always maps to the same one). */
function mistralToolCallId(id: string): string {
  return createHash('sha256')
    .update(id)
    .digest('base64')
    .replace(/[^a-zA-Z0-9]/g, '')
    .slice(0, 9);
}
