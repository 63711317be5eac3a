import type {} from '@gw/testing';
import { afterEach, inject } from 'vitest';
import { OpenApiResponseCheck, type ObservedResponse } from './openapi-response-check.js';

/**
 * Every answer an end-to-end test receives from the gateway is checked against the OpenAPI
 * document the gateway serves: route, status, content type and JSON schema. Installed
 * for the whole e2e project (vitest.config.ts `setupFiles`) by wrapping `fetch`, which `call()`
 * and every SDK client of the specs (openai, @anthropic-ai/sdk, @openrouter/sdk, ai, langchain)
 * go through; node:http callers report with `noteAnswer`. A mismatch fails the test it happened in.
 */
interface AnswerLog {
  pending: Set<Promise<void>>;
  problems: string[];
  check?: Promise<OpenApiResponseCheck>;
}

const LOG_KEY = Symbol.for('gw.e2e.openapi-answers');
const log: AnswerLog = ((globalThis as Record<symbol, unknown>)[LOG_KEY] ??= { pending: new Set(), problems: [] }) as AnswerLog;
const stack = inject('stack');
const originalFetch = globalThis.fetch;
/** Every gateway replica of the stack (`baseUrl` ends in `/v1`; `/health` is outside it). */
const gatewayOrigins = new Set([stack.baseUrl, ...((stack as { baseUrls?: string[] }).baseUrls ?? [])].map((url) => new URL(url).origin));

function checker(): Promise<OpenApiResponseCheck> {
  log.check ??= originalFetch(`${new URL(stack.baseUrl).origin}/v1/openapi.json`).then(async (response) => {
    if (response.status !== 200) throw new Error(`GET /v1/openapi.json answered ${response.status}`);
    return new OpenApiResponseCheck((await response.json()) as ConstructorParameters<typeof OpenApiResponseCheck>[0]);
  });
  return log.check;
}

/** Records an answer for the check (for requests made without fetch). */
export function noteAnswer(answer: ObservedResponse): void {
  const task = checker()
    .then((check) => void log.problems.push(...check.problems(answer)))
    .catch((error: unknown) => void log.problems.push(`the answer check failed: ${String(error)}`));
  log.pending.add(task);
  void task.finally(() => log.pending.delete(task));
}

function urlOf(input: string | URL | Request): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

if (!(originalFetch as { checksAnswers?: boolean }).checksAnswers) {
  const checkedFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await originalFetch(input, init);
    const url = urlOf(input);
    if (gatewayOrigins.has(new URL(url).origin)) {
      const method = init?.method ?? (input instanceof Request ? input.method : 'GET');
      const contentType = response.headers.get('content-type');
      // JSON bodies are read from a copy; event streams are not (a test may stop reading one on purpose).
      if (contentType && /json/i.test(contentType)) {
        const body = response.clone().text();
        const task = body.then(
          (text) => noteAnswer({ method, url, status: response.status, contentType, body: text }),
          (error: unknown) => void log.problems.push(`${method} ${url}: the body could not be read for the check: ${String(error)}`),
        );
        log.pending.add(task);
        void task.finally(() => log.pending.delete(task));
      } else {
        noteAnswer({ method, url, status: response.status, contentType });
      }
    }
    return response;
  };
  globalThis.fetch = Object.assign(checkedFetch, { checksAnswers: true }) as typeof fetch;
}

afterEach(async () => {
  while (log.pending.size > 0) await Promise.allSettled([...log.pending]);
  const problems = log.problems.splice(0);
  if (problems.length > 0) throw new Error(`Answers that do not match the OpenAPI document (docs/openapi.json):\n${problems.join('\n')}`);
});
