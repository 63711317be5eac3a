import { Controller, Logger, Module } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { loggerParams } from '@gw/config';
import { GatewayError } from '@gw/errors';
import { currentRequestId, initTracing, runWithRequestId, tracer } from '@gw/telemetry';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { LoggerModule } from 'nestjs-pino';
import { createServer, type Server } from 'node:http';
import { Writable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RpcClient } from './rpc-client.js';
import { ServedStream } from './served-stream.js';
import { startRpcHarness, type RpcHarness } from './spec-helpers.js';

/*
 * With tracing ON in this process (an in-memory exporter): a request-reply call and a
 * stream carry `traceparent` and `x-request-id` in NATS headers both ways of libs/messaging's
 * RPC; the handler's span continues the caller's, an undici call under it is its child, and the
 * handler's log lines carry the request id and the trace id.
 */

const exporter = new InMemorySpanExporter();
const lines: Array<Record<string, unknown>> = [];
const sink = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString('utf8').split('\n'))
      if (line.startsWith('{')) lines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});
let upstreamUrl = '';
let traceparentSeenUpstream: string | undefined;

@Controller()
class TracedController {
  private readonly log = new Logger('Traced');

  @MessagePattern('traced.call')
  call(): Promise<{ requestId?: string }> {
    return this.callUpstream();
  }

  private async callUpstream(): Promise<{ requestId?: string }> {
    this.log.log('calling upstream');
    const response = await request(upstreamUrl, { method: 'POST', body: '{}' });
    await response.body.text();
    return { requestId: currentRequestId() };
  }

  @MessagePattern('traced.stream')
  stream(): ServedStream {
    const requestId = currentRequestId() ?? 'none';
    return new ServedStream(async (out) => {
      out.write(`${requestId};`);
      await new Promise((resolve) => setTimeout(resolve, 10));
      out.write('second;');
    });
  }

  @MessagePattern('traced.fail')
  fail(): never {
    throw new GatewayError(503, 'upstream down', { errorType: 'server' });
  }
}

const params = loggerParams('traced', 'info');
@Module({ imports: [LoggerModule.forRoot({ ...params, pinoHttp: [params.pinoHttp as object, sink] })], controllers: [TracedController] })
class TracedModule {}

describe('trace context and request id over NATS (tracing on)', () => {
  let upstream: Server;
  let client: RpcClient;
  let harness: RpcHarness;

  beforeAll(async () => {
    await initTracing('traced-test', { exporter });
    upstream = createServer((req, res) => {
      traceparentSeenUpstream = req.headers.traceparent as string | undefined;
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as { port: number }).port}/v1/chat/completions`;
    harness = await startRpcHarness(TracedModule, { queue: 'traced', clientName: 'traced-client', timeoutMs: 2_000 });
    ({ client } = harness);
  });

  afterAll(async () => {
    await harness?.close();
    await new Promise((resolve) => upstream?.close(resolve));
  });

  const byName = (name: string, kind: SpanKind): ReadableSpan => {
    const found = exporter.getFinishedSpans().find((span) => span.name === name && span.kind === kind);
    if (!found)
      throw new Error(
        `no ${name} span; have ${exporter
          .getFinishedSpans()
          .map((span) => span.name)
          .join(', ')}`,
      );
    return found;
  };

  it.each(['traced.call'])(
    "%s: continues the caller trace in the handler, and the handler's undici call under it, with the request id",
    async (subject) => {
      exporter.reset();
      lines.length = 0;
      const root = tracer().startSpan('edge', { kind: SpanKind.SERVER });
      const reply = await context.with(trace.setSpan(context.active(), root), () =>
        runWithRequestId('req-traced-1', () => client.send<{ requestId?: string }>(subject, {})),
      );
      root.end();
      expect(reply.requestId).toBe('req-traced-1');
      const traceId = root.spanContext().traceId;
      const clientSpan = byName(subject, SpanKind.CLIENT);
      const serverSpan = byName(subject, SpanKind.SERVER);
      const http = exporter.getFinishedSpans().find((span) => span.parentSpanContext?.spanId === serverSpan.spanContext().spanId);
      for (const span of [clientSpan, serverSpan, http!]) expect(span.spanContext().traceId).toBe(traceId);
      expect(clientSpan.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
      expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
      expect(serverSpan.attributes['gw.request_id']).toBe('req-traced-1');
      expect(http?.attributes['http.request.method']).toBe('POST');
      // The provider sees the undici span as its parent (W3C traceparent on the HTTP call).
      expect(traceparentSeenUpstream).toBe(`00-${traceId}-${http!.spanContext().spanId}-01`);
      const line = lines.find((entry) => entry.msg === 'calling upstream');
      expect(line).toMatchObject({
        request_id: 'req-traced-1',
        trace_id: traceId,
        span_id: serverSpan.spanContext().spanId,
        name: 'traced',
      });
    },
  );

  it('carries both on a stream; the handler span ends with its last packet', async () => {
    exporter.reset();
    let text = '';
    await runWithRequestId('req-stream-1', async () => {
      for await (const packet of client.stream<Uint8Array>('traced.stream', {}, { firstPacketTimeoutMs: 2_000, idleTimeoutMs: 2_000 }))
        text += Buffer.from(packet).toString();
    });
    expect(text).toBe('req-stream-1;second;');
    const clientSpan = byName('traced.stream', SpanKind.CLIENT);
    const serverSpan = byName('traced.stream', SpanKind.SERVER);
    expect(serverSpan.parentSpanContext?.spanId).toBe(clientSpan.spanContext().spanId);
    expect(serverSpan.spanContext().traceId).toBe(clientSpan.spanContext().traceId);
  });

  it.each(['traced.fail'])('%s: marks both spans failed on a 5xx answer, with its status and type', async (subject) => {
    exporter.reset();
    await expect(client.sendJson(subject, {})).rejects.toMatchObject({ status: 503 });
    for (const kind of [SpanKind.CLIENT, SpanKind.SERVER]) {
      const span = byName(subject, kind);
      expect(span.status.code).toBe(SpanStatusCode.ERROR);
      expect(span.attributes['http.response.status_code']).toBe(503);
      expect(span.attributes['error.type']).toBe('server');
    }
  });
});
