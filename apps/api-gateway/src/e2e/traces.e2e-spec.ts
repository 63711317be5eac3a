import { IsolatedStackRun, type IsolatedStack } from '@gw/testing';
import { freePort } from '@gw/stack';
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/*
 * Issue 16, traces: a stack of its own with tracing ON (the suite's stack runs
 * with it off, the default), exporting OTLP/JSON to a collector stand-in in this process. One
 * chat completion must make ONE trace: the client's span -> the gateway's HTTP span -> its NATS
 * call -> inference's handler -> the provider attempt -> its undici HTTP call, and the usage
 * event's publish -> management's counting, with the right parents. Its log lines (LOG_LEVEL
 * debug here) carry the request id and the trace id in every service.
 */

interface OtlpSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: Array<{ traceId: string; spanId: string }>;
}

const spans: OtlpSpan[] = [];
let collector: Server;
const run = new IsolatedStackRun('traces');
let stack: IsolatedStack;
let failed = true;

/** OTLP/JSON AnyValue -> a plain value. */
function valueOf(value: Record<string, unknown>): unknown {
  if ('stringValue' in value) return value.stringValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('boolValue' in value) return value.boolValue;
  return undefined;
}

function attributesOf(list: Array<{ key: string; value: Record<string, unknown> }> | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, valueOf(value)]));
}

/** Receives `POST /v1/traces` as the OTLP/HTTP JSON exporter sends it and keeps every span. */
function startCollector(port: number): Promise<Server> {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: Array<{
            resource: { attributes: Array<{ key: string; value: Record<string, unknown> }> };
            scopeSpans: Array<{ spans: Array<Record<string, unknown>> }>;
          }>;
        };
        for (const resourceSpans of body.resourceSpans) {
          const service = String(attributesOf(resourceSpans.resource.attributes)['service.name']);
          for (const scope of resourceSpans.scopeSpans) {
            for (const span of scope.spans) {
              spans.push({
                service,
                traceId: String(span.traceId),
                spanId: String(span.spanId),
                parentSpanId: String(span.parentSpanId ?? ''),
                name: String(span.name),
                kind: Number(span.kind),
                attributes: attributesOf(span.attributes as never),
                links: ((span.links as Array<{ traceId: string; spanId: string }>) ?? []).map(({ traceId, spanId }) => ({
                  traceId,
                  spanId,
                })),
              });
            }
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(server)));
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; spans: ${spans.map((span) => `${span.service}:${span.name}`).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function logLines(service: string): Array<Record<string, unknown>> {
  return readFileSync(join(stack.logDir, `${service}.log`), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

beforeAll(async () => {
  const port = await freePort();
  collector = await startCollector(port);
  stack = await run.start(new AbortController().signal, {
    env: {
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_BSP_SCHEDULE_DELAY: '100',
      LOG_LEVEL: 'debug',
    },
  });
}, 180_000);

afterAll(async () => {
  await run.teardown(failed);
  if (failed) console.error(`traced stack logs kept in ${run.logDir}`);
  await new Promise((resolve) => collector?.close(resolve));
}, 60_000);

describe('one request, one trace across the services (tracing on)', () => {
  it('runs client -> gateway -> inference -> provider call -> usage event -> management counter with correct parents', async () => {
    // The client's own trace: the gateway continues it (W3C traceparent on the HTTP request).
    const traceId = randomBytes(16).toString('hex');
    const clientSpanId = randomBytes(8).toString('hex');
    const requestId = `traces-e2e-${randomBytes(6).toString('hex')}`;
    // Spec §4.5 trace metadata: links the generation to another trace of the caller's.
    const callerTrace = {
      trace_id: randomBytes(16).toString('hex'),
      parent_span_id: randomBytes(8).toString('hex'),
      trace_name: 'nightly-eval',
      span_name: 'judge',
      generation_name: 'score-1',
    };
    const response = await fetch(`${stack.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${stack.apiKey}`,
        'content-type': 'application/json',
        traceparent: `00-${traceId}-${clientSpanId}-01`,
        'x-request-id': requestId,
      },
      body: JSON.stringify({ model: 'sim/gpt-4o-mini', messages: [{ role: 'user', content: 'Trace me' }], trace: callerTrace }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe(requestId);
    const answer = (await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number; cost: number } };

    const of = (service: string, predicate: (span: OtlpSpan) => boolean) => () =>
      spans.find((span) => span.traceId === traceId && span.service === service && predicate(span));
    const counted = await until(
      'management to count the usage event',
      of('management', (span) => span.name === 'events.usage.recorded process'),
    );
    const httpServer = await until(
      'the gateway HTTP span',
      of('api-gateway', (span) => span.name === 'POST /v1/chat/completions'),
    );
    const rpcClient = await until(
      'the gateway NATS client span',
      of('api-gateway', (span) => span.name === 'inference.chat.create'),
    );
    const handler = await until(
      'the inference handler span',
      of('inference', (span) => span.name === 'inference.chat.create'),
    );
    const attempt = await until(
      'the provider attempt span',
      of('inference', (span) => span.name === 'chat gpt-4o-mini'),
    );
    const undici = await until(
      'the undici HTTP span',
      of('inference', (span) => span.parentSpanId === attempt.spanId),
    );
    const publish = await until(
      'the usage publish span',
      of('inference', (span) => span.name === 'events.usage.recorded publish'),
    );
    failed = false;

    // One trace, each span the child of the one before it.
    expect(httpServer.parentSpanId).toBe(clientSpanId);
    expect(httpServer.kind).toBe(2); // SERVER
    expect(httpServer.attributes['http.response.status_code']).toBe(200);
    expect(rpcClient.parentSpanId).toBe(httpServer.spanId);
    expect(handler.parentSpanId).toBe(rpcClient.spanId);
    expect(attempt.parentSpanId).toBe(handler.spanId);
    expect(undici.attributes['http.request.method']).toBe('POST');
    expect(String(undici.attributes['url.full'])).toContain('/chat/completions');
    expect(publish.parentSpanId).toBe(handler.spanId);
    expect(counted.parentSpanId).toBe(publish.spanId);

    // Model, provider, attempt, tokens and cost, as the answer said (GenAI conventions).
    expect(attempt.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'simulator-openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gw.model': 'sim/gpt-4o-mini',
      'gw.attempt': 1,
    });
    expect(handler.attributes).toMatchObject({
      'gen_ai.provider.name': 'simulator-openai',
      'gw.model': 'sim/gpt-4o-mini',
      'gw.attempt': 1,
      'gen_ai.usage.input_tokens': answer.usage.prompt_tokens,
      'gen_ai.usage.output_tokens': answer.usage.completion_tokens,
      'gw.request_id': requestId,
    });
    expect(Number(handler.attributes['gw.cost'])).toBeCloseTo(answer.usage.cost, 12);
    expect(counted.attributes).toMatchObject({
      'gen_ai.usage.input_tokens': answer.usage.prompt_tokens,
      'gw.usage.counted': true,
      'gw.request_id': requestId,
    });

    // The caller's §4.5 trace metadata: attributes, and a link to its span.
    expect(handler.attributes).toMatchObject({
      'gw.caller_trace.trace_id': callerTrace.trace_id,
      'gw.caller_trace.trace_name': 'nightly-eval',
      'gw.caller_trace.span_name': 'judge',
      'gw.caller_trace.generation_name': 'score-1',
      'gw.caller_trace.parent_span_id': callerTrace.parent_span_id,
    });
    expect(handler.links).toContainEqual({ traceId: callerTrace.trace_id, spanId: callerTrace.parent_span_id });

    // Every service's log lines of this request name it, and the trace (LOG_LEVEL debug on this stack).
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (const service of ['inference', 'management']) {
      const lines = logLines(service).filter((line) => line.request_id === requestId);
      expect(lines.length, `${service} log lines with request_id ${requestId}`).toBeGreaterThan(0);
    }
    const inferenceLines = logLines('inference').filter((line) => line.request_id === requestId);
    for (const line of inferenceLines) expect(line.trace_id).toBe(traceId);
    // Management's lines (the gateway's auth lookup, the usage event counted) carry the trace too.
    const managementLines = logLines('management').filter((line) => line.request_id === requestId);
    expect(managementLines.some((line) => line.msg === 'Usage event counted')).toBe(true);
    for (const line of managementLines) expect(line.trace_id, JSON.stringify(line)).toBe(traceId);
  });
});
