import { Inject, Injectable, type OnModuleDestroy } from '@nestjs/common';
import { Agent, errors, request } from 'undici';
import { INFERENCE_ENV, type InferenceEnv } from '../env.js';
import { transportFailure, UpstreamFailure } from './upstream-failure.js';

export interface UpstreamResponse {
  status: number;
  body: unknown;
}

/** Largest provider body read into memory (a guard against a runaway upstream), chunked or not. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

/**
 * HTTP calls to providers over one keep-alive pool (undici Agent), with a connect timeout,
 * a first-byte (headers) timeout and a body timeout on every call.
 */
@Injectable()
export class UpstreamClient implements OnModuleDestroy {
  private readonly agent: Agent;

  constructor(@Inject(INFERENCE_ENV) env: InferenceEnv) {
    this.agent = new Agent({
      connect: { timeout: env.UPSTREAM_CONNECT_TIMEOUT_MS },
      headersTimeout: env.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
      bodyTimeout: env.UPSTREAM_BODY_TIMEOUT_MS,
      connections: env.UPSTREAM_CONNECTIONS,
      keepAliveTimeout: 30_000,
      maxResponseSize: MAX_RESPONSE_BYTES,
    });
  }

  async postJson(provider: string, url: string, headers: Record<string, string>, body: string, signal?: AbortSignal): Promise<UpstreamResponse> {
    let response;
    try {
      response = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
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
      return { status: response.statusCode, body: parsed };
    } catch (error) {
      if (error instanceof UpstreamFailure) throw error;
      throw toTransportFailure(provider, error);
    }
  }

  async onModuleDestroy(): Promise<void> {
    await this.agent.close();
  }
}

function toTransportFailure(provider: string, error: unknown): UpstreamFailure {
  if (error instanceof errors.ConnectTimeoutError) return transportFailure(provider, 'connect', 'did not accept a connection in time');
  if (error instanceof errors.HeadersTimeoutError) return transportFailure(provider, 'timeout', 'did not answer in time');
  if (error instanceof errors.BodyTimeoutError) return transportFailure(provider, 'timeout', 'stopped sending its answer');
  if (error instanceof errors.RequestAbortedError || (error as Error).name === 'AbortError') {
    return transportFailure(provider, 'aborted', 'call was cancelled');
  }
  if (error instanceof errors.SocketError) return transportFailure(provider, 'protocol', 'closed the connection mid-answer');
  if (error instanceof errors.ResponseExceededMaxSizeError) return transportFailure(provider, 'protocol', 'sent a response that is too large');
  return transportFailure(provider, 'connect', 'could not be reached');
}
