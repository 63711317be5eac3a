import type { ServerResponse } from 'node:http';
import { sendJson } from './http.ts';

export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string };
}

export function openaiError(message: string, type: string, param: string | null = null, code: string | null = null): OpenAIErrorBody {
  return { error: { message, type, param, code } };
}

export function anthropicError(type: string, message: string): AnthropicErrorBody {
  return { type: 'error', error: { type, message } };
}

/** The body OpenAI sends for a given status (used by the `status` directive). */
export function openaiErrorForStatus(status: number, model: string): OpenAIErrorBody {
  switch (status) {
    case 400:
      return openaiError('Invalid request (simulated).', 'invalid_request_error', null, 'invalid_value');
    case 401:
      return openaiError(
        'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.',
        'invalid_request_error',
        null,
        'invalid_api_key',
      );
    case 403:
      return openaiError('Country, region, or territory not supported', 'request_forbidden', null, 'unsupported_country_region_territory');
    case 404:
      return openaiError(
        `The model \`${model}\` does not exist or you do not have access to it.`,
        'invalid_request_error',
        null,
        'model_not_found',
      );
    case 413:
      return openaiError('Request too large.', 'invalid_request_error', null, 'request_too_large');
    case 429:
      return openaiError(
        `Rate limit reached for ${model} on requests per min (RPM): Limit 1, Used 1, Requested 1. Please try again in 1s.`,
        'requests',
        null,
        'rate_limit_exceeded',
      );
    case 502:
      return openaiError('Bad gateway.', 'server_error', null, null);
    case 503:
      return openaiError('The engine is currently overloaded, please try again later.', 'server_error', null, null);
    case 529:
      return openaiError('The server is overloaded, please try again later.', 'server_error', null, null);
    default:
      return status < 500
        ? openaiError(`Request failed with status ${status} (simulated).`, 'invalid_request_error', null, null)
        : openaiError('The server had an error while processing your request. Sorry about that!', 'server_error', null, null);
  }
}

/** The body Anthropic sends for a given status (used by the `status` directive). */
export function anthropicErrorForStatus(status: number, model: string): AnthropicErrorBody {
  switch (status) {
    case 400:
      return anthropicError('invalid_request_error', 'Invalid request (simulated).');
    case 401:
      return anthropicError('authentication_error', 'invalid x-api-key');
    case 402:
      return anthropicError('billing_error', 'Your credit balance is too low to access the Anthropic API (simulated).');
    case 403:
      return anthropicError('permission_error', 'Your API key does not have permission to use the specified resource.');
    case 404:
      return anthropicError('not_found_error', `model: ${model}`);
    case 413:
      return anthropicError('request_too_large', 'Request exceeds the maximum allowed number of bytes.');
    case 429:
      return anthropicError('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit (simulated).');
    case 529:
    case 503:
      return anthropicError('overloaded_error', 'Overloaded');
    default:
      return status < 500
        ? anthropicError('invalid_request_error', `Request failed with status ${status} (simulated).`)
        : anthropicError('api_error', 'Internal server error');
  }
}

/** Both providers send `retry-after` (seconds) with a 429, and may with a 503/529 when overloaded. */
function retryAfterHeader(status: number, retryAfter: number | undefined): Record<string, string> | undefined {
  if (retryAfter !== undefined && (status === 429 || status === 503 || status === 529)) return { 'retry-after': String(retryAfter) };
  return status === 429 ? { 'retry-after': '1' } : undefined;
}

/** OpenAI's answer when the account's credit or monthly quota is spent: a 429 with no wait to offer. */
const INSUFFICIENT_QUOTA = openaiError(
  'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
  'insufficient_quota',
  null,
  'insufficient_quota',
);

export function sendOpenAIStatus(res: ServerResponse, status: number, model: string, retryAfter?: number, quota = false): void {
  if (quota && status === 429) return sendJson(res, 429, INSUFFICIENT_QUOTA);
  sendJson(res, status, openaiErrorForStatus(status, model), retryAfterHeader(status, retryAfter));
}

export function sendAnthropicStatus(res: ServerResponse, status: number, model: string, retryAfter?: number): void {
  sendJson(res, status, anthropicErrorForStatus(status, model), retryAfterHeader(status, retryAfter));
}
