import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { markCommitted } from '@gw/messaging';
import { GatewayError } from '@gw/errors';
import { isIP } from 'node:net';
import { Agent, errors, request, type FormData } from 'undici';
import { isForbiddenAddress, publicOnlyLookup } from '../server-tools/address-rules.js';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { extraCertificateAuthorities } from './extra-certificate-authorities.js';
import { httpFailure, midStreamFailure, parseRetryAfter, transportFailure, UpstreamFailure } from './upstream-failure.js';

export interface UpstreamResponse {
  status: number;
  body: unknown;
  /** The provider's `retry-after` on an error answer, in ms (upstream-failure.ts). */
  retryAfterMs?: number;
}

export interface RawUpstreamResponse {
  status: number;
  text: string;
  retryAfterMs?: number;
}

/** What a provider's error body says, in whatever shape its format uses. */
export interface UpstreamErrorDetail {
  message?: string;
  code?: string;
  /** The status to map instead of the HTTP one (a provider that answers 400 for a refused key). */
  status?: number;
  /** The provider's wait when its body says it (Google's RetryInfo) rather than a header. */
  retryAfterMs?: number;
}

/** Reads OpenAI's `{error: {message, code}}`, which most providers imitate. */
export function openAiErrorDetail(body: unknown): UpstreamErrorDetail {
  const error = (body as { error?: { message?: unknown; code?: unknown } } | undefined)?.error;
  return {
    message: typeof error?.message === 'string' ? error.message : undefined,
    code: typeof error?.code === 'string' ? error.code : undefined,
  };
}

/** Largest provider body read into memory (a guard against a runaway upstream), chunked or not. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/** A batch's result file (OpenAI's output file of up to 50,000 lines) is read whole: a larger cap, on its own small pool. */
const MAX_BATCH_FILE_BYTES = 512 * 1024 * 1024;

/**
 * HTTP calls to providers over one keep-alive pool (undici Agent), with a connect timeout,
 * a first-byte (headers) timeout and a body timeout on every call.
 */
@Injectable()
export class UpstreamClient implements OnModuleDestroy {
  private readonly agent: Agent;
  private readonly batchAgent: Agent;
  /** For endpoints a workspace's credential names: private, loopback and link-local addresses refused at connect. */
  private readonly tenantAgent: Agent;
  private readonly tenantAllowed: Set<string>;

  constructor(@Inject(INFERENCE_ENV) env: InferenceEnv) {
    const ca = extraCertificateAuthorities(env);
    const timeouts = {
      connect: { timeout: env.UPSTREAM_CONNECT_TIMEOUT_MS, ...(ca ? { ca } : {}) },
      headersTimeout: env.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
      bodyTimeout: env.UPSTREAM_BODY_TIMEOUT_MS,
      keepAliveTimeout: 30_000,
    };
    this.agent = new Agent({ ...timeouts, connections: env.UPSTREAM_CONNECTIONS, maxResponseSize: MAX_RESPONSE_BYTES });
    this.batchAgent = new Agent({ ...timeouts, connections: 16, maxResponseSize: MAX_BATCH_FILE_BYTES });
    const refusal = (hostname: string, address: string) =>
      Object.assign(new Error(`${hostname} resolves to ${address}, a private, loopback or link-local address`), {
        code: FORBIDDEN_ADDRESS,
      });
    this.tenantAgent = new Agent({
      ...timeouts,
      connect: { ...timeouts.connect, lookup: publicOnlyLookup(refusal) },
      connections: 64,
      maxResponseSize: MAX_RESPONSE_BYTES,
    });
    this.tenantAllowed = new Set(
      env.BYOK_ALLOWED_ORIGINS.split(',')
        .map((origin) => origin.trim())
        .filter(Boolean)
        .map((origin) => new URL(origin).origin),
    );
  }

  /**
   * The pool for `url`: a tenant-named endpoint goes through the guarded pool unless the operator
   * allowed its origin; an IP literal is judged here (no lookup is made for one).
   */
  private dispatcherFor(url: string, tenantEndpoint: boolean): Agent {
    if (!tenantEndpoint) return this.agent;
    const parsed = new URL(url);
    if (this.tenantAllowed.has(parsed.origin)) return this.agent;
    const host = parsed.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && isForbiddenAddress(host)) throw forbiddenEndpoint(`${parsed.host} is a private, loopback or link-local address`);
    return this.tenantAgent;
  }

  async postJson(
    provider: string,
    url: string,
    headers: Record<string, string>,
    body: string,
    signal?: AbortSignal,
    tenantEndpoint = false,
  ): Promise<UpstreamResponse> {
    const dispatcher = this.dispatcherFor(url, tenantEndpoint);
    // From here the provider may do (and bill) the work: the gateway must not resend this request.
    markCommitted();
    let response;
    try {
      response = await request(url, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body,
        signal,
      });
    } catch (error) {
      throw toTransportFailure(provider, error);
    }
    try {
      const text = await response.body.text();
      let parsed: unknown = undefined;
      try {
        parsed = text.length > 0 ? JSON.parse(text) : undefined;
      } catch {
        if (response.statusCode < 400) throw transportFailure(provider, 'protocol', 'sent a body that is not JSON');
      }
      const retryAfterMs = response.statusCode >= 400 ? parseRetryAfter(response.headers) : undefined;
      return { status: response.statusCode, body: parsed, retryAfterMs };
    } catch (error) {
      if (error instanceof UpstreamFailure) throw error;
      throw toTransportFailure(provider, error);
    }
  }

  /**
   * `postJson` for an answer that must be a success: an error status is thrown as the
   * `httpFailure` its body describes (`errorDetail` reads the provider's error format).
   */
  async postOrFail(
    provider: string,
    url: string,
    headers: Record<string, string>,
    body: string,
    signal: AbortSignal | undefined,
    errorDetail: (errorBody: unknown) => UpstreamErrorDetail,
    tenantEndpoint = false,
  ): Promise<unknown> {
    const response = await this.postJson(provider, url, headers, body, signal, tenantEndpoint);
    if (response.status < 400) return response.body;
    const detail = errorDetail(response.body);
    throw httpFailure(
      provider,
      detail.status ?? response.status,
      detail.message,
      detail.code,
      response.retryAfterMs ?? detail.retryAfterMs,
    );
  }

  /**
   * Starts a streamed call. Resolves once the provider sent 2xx headers; an error status is
   * read (bounded) and rejected as the `httpFailure` its body describes, so routing can still
   * try another endpoint. The returned text arrives as the provider sends it; a failure while
   * reading it (socket closed, body timeout, abort) throws a non-retryable UpstreamFailure,
   * and ending the iteration early destroys the body, which aborts the upstream call.
   */
  async postStream(
    provider: string,
    url: string,
    headers: Record<string, string>,
    body: string,
    signal?: AbortSignal,
    errorDetail: (errorBody: unknown) => UpstreamErrorDetail = openAiErrorDetail,
    tenantEndpoint = false,
  ): Promise<AsyncIterable<string>> {
    const dispatcher = this.dispatcherFor(url, tenantEndpoint);
    markCommitted(); // as in postJson
    let response;
    try {
      response = await request(url, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
        body,
        signal,
      });
    } catch (error) {
      throw toTransportFailure(provider, error);
    }
    if (response.statusCode >= 300) {
      let errorBody: unknown;
      try {
        const text = await response.body.text();
        errorBody = text.length > 0 ? JSON.parse(text) : undefined;
      } catch {
        errorBody = undefined; // an unreadable error body still maps by its status
      }
      const detail = errorDetail(errorBody);
      const retryAfterMs = parseRetryAfter(response.headers) ?? detail.retryAfterMs;
      throw httpFailure(provider, detail.status ?? response.statusCode, detail.message, detail.code, retryAfterMs);
    }
    return decodeText(provider, response.body);
  }

  /**
   * Any other provider call (the batch and file APIs): the raw status and body text,
   * whatever the status. Same timeouts on a pool of its own whose answers may be as large as
   * a batch's result file; transport failures as in postJson.
   * It does not mark the request committed: a caller whose call makes the provider do (and
   * bill) work calls `markCommitted()` itself.
   */
  async call(
    provider: string,
    options: {
      method: 'GET' | 'POST' | 'DELETE';
      url: string;
      headers: Record<string, string>;
      body?: string | FormData;
      signal?: AbortSignal;
    },
  ): Promise<RawUpstreamResponse> {
    let response;
    try {
      response = await request(options.url, {
        method: options.method,
        dispatcher: this.batchAgent,
        headers: options.headers,
        body: options.body,
        signal: options.signal,
      });
    } catch (error) {
      throw toTransportFailure(provider, error);
    }
    try {
      const text = await response.body.text();
      return {
        status: response.statusCode,
        text,
        retryAfterMs: response.statusCode >= 400 ? parseRetryAfter(response.headers) : undefined,
      };
    } catch (error) {
      throw toTransportFailure(provider, error);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([this.agent.close(), this.batchAgent.close(), this.tenantAgent.close()]);
  }
}

/** The body as text; mid-stream read errors become non-retryable failures. */
async function* decodeText(
  provider: string,
  body: AsyncIterable<Uint8Array> & { destroy(): unknown; destroyed: boolean },
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  try {
    for await (const bytes of body) yield decoder.decode(bytes, { stream: true });
    const rest = decoder.decode();
    if (rest.length > 0) yield rest;
  } catch (error) {
    throw midStreamFailure(toTransportFailure(provider, error));
  } finally {
    // Stopping early (the consumer broke out, or failed) must not leave the upstream running.
    if (!body.destroyed) body.destroy();
  }
}

const FORBIDDEN_ADDRESS = 'ERR_GW_FORBIDDEN_ADDRESS';

/** The workspace's own credential names an endpoint inside the network: its request, not the provider, is wrong. */
function forbiddenEndpoint(detail: string): UpstreamFailure {
  return new UpstreamFailure(
    'connect',
    new GatewayError(400, `The workspace's endpoint (its BYOK credential's or its own model's) is refused: ${detail}`, {
      errorType: 'invalid_request',
    }),
    false,
  );
}

function toTransportFailure(provider: string, error: unknown): UpstreamFailure {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  if ((error as { code?: unknown }).code === FORBIDDEN_ADDRESS || cause?.code === FORBIDDEN_ADDRESS)
    return forbiddenEndpoint((error as Error).message || String((cause as Error | undefined)?.message));
  if (error instanceof errors.ConnectTimeoutError) return transportFailure(provider, 'connect', 'did not accept a connection in time');
  if (error instanceof errors.HeadersTimeoutError) return transportFailure(provider, 'timeout', 'did not answer in time');
  if (error instanceof errors.BodyTimeoutError) return transportFailure(provider, 'timeout', 'stopped sending its answer');
  if (error instanceof errors.RequestAbortedError || (error as Error).name === 'AbortError') {
    return transportFailure(provider, 'aborted', 'call was cancelled');
  }
  if (error instanceof errors.SocketError) return transportFailure(provider, 'protocol', 'closed the connection mid-answer');
  if (error instanceof errors.ResponseExceededMaxSizeError)
    return transportFailure(provider, 'protocol', 'sent a response that is too large');
  return transportFailure(provider, 'connect', 'could not be reached');
}
