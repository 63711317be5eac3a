import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import type { Sampler, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace';

/*
 * OpenTelemetry traces (issue 16). OFF unless OTEL_TRACES_EXPORTER names an
 * exporter: then, and only then, the SDK is loaded (dynamic imports), a context manager and the
 * W3C propagator are registered and `tracingEnabled()` turns true. Everything that would do
 * tracing work on a hot path asks `tracingEnabled()` first, so a process without tracing pays
 * one boolean check per place, no context propagation, no span objects.
 */

let enabled = false;
let tracerInstance: Tracer = trace.getTracer('inference-gateway');
let shutdownHook: (() => Promise<void>) | undefined;

/** True once `initTracing` turned tracing on in this process. The one check hot paths make. */
export function tracingEnabled(): boolean {
  return enabled;
}

/** The process's tracer (a no-op one while tracing is off). */
export function tracer(): Tracer {
  return tracerInstance;
}

export type TraceExporterName = 'otlp' | 'console';
export type OtlpProtocol = 'http/protobuf' | 'http/json';

export interface TracingSettings {
  exporters: TraceExporterName[];
  protocol: OtlpProtocol;
  sampler: { name: string; ratio: number };
  batch: { scheduledDelayMillis?: number; exportTimeoutMillis?: number; maxQueueSize?: number; maxExportBatchSize?: number };
}

const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'];

/**
 * The standard OTEL_* variables as this process reads them; null when tracing is off (the
 * default: OTEL_TRACES_EXPORTER unset, empty or `none`, or OTEL_SDK_DISABLED=true). A value
 * this process cannot honour (an exporter or protocol not installed) throws, so a service fails
 * at start rather than running without the traces its operator asked for.
 */
export function tracingSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): TracingSettings | null {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return null;
  const names = (env.OTEL_TRACES_EXPORTER ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '' && name !== 'none');
  if (names.length === 0) return null;
  for (const name of names) {
    if (name !== 'otlp' && name !== 'console') throw new Error(`OTEL_TRACES_EXPORTER: "${name}" is not supported (otlp, console or none)`);
  }
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL || env.OTEL_EXPORTER_OTLP_PROTOCOL || 'http/protobuf').trim();
  if (protocol !== 'http/protobuf' && protocol !== 'http/json')
    throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL: "${protocol}" is not supported (http/protobuf or http/json)`);
  const samplerName = (env.OTEL_TRACES_SAMPLER || 'parentbased_always_on').trim().toLowerCase();
  if (!SAMPLERS.includes(samplerName)) throw new Error(`OTEL_TRACES_SAMPLER: "${samplerName}" is not supported (${SAMPLERS.join(', ')})`);
  const ratio = env.OTEL_TRACES_SAMPLER_ARG === undefined || env.OTEL_TRACES_SAMPLER_ARG === '' ? 1 : Number(env.OTEL_TRACES_SAMPLER_ARG);
  if (!(ratio >= 0 && ratio <= 1)) throw new Error('OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1');
  const int = (name: string): number | undefined => {
    const value = env[name];
    if (value === undefined || value === '') return undefined;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0) throw new Error(`${name} must be a non-negative integer`);
    return parsed;
  };
  return {
    exporters: [...new Set(names)] as TraceExporterName[],
    protocol,
    sampler: { name: samplerName, ratio },
    batch: {
      scheduledDelayMillis: int('OTEL_BSP_SCHEDULE_DELAY'),
      exportTimeoutMillis: int('OTEL_BSP_EXPORT_TIMEOUT'),
      maxQueueSize: int('OTEL_BSP_MAX_QUEUE_SIZE'),
      maxExportBatchSize: int('OTEL_BSP_MAX_EXPORT_BATCH_SIZE'),
    },
  };
}

export interface InitTracingOptions {
  env?: NodeJS.ProcessEnv;
  /** Tests: export every span to this exporter, as it ends, whatever the environment says. */
  exporter?: SpanExporter;
}

/**
 * Turns tracing on when the environment asks for it (or a test passes an exporter): registers
 * the tracer provider (resource: `service.name` = OTEL_SERVICE_NAME or `serviceName`, plus
 * OTEL_RESOURCE_ATTRIBUTES), the async-local-storage context manager, the W3C trace-context
 * propagator and the undici instrumentation (provider calls; only under a span of ours). Call
 * it first thing in `main.ts`, before the app is built. Resolves with whether tracing is on.
 */
export async function initTracing(serviceName: string, options: InitTracingOptions = {}): Promise<boolean> {
  if (enabled) return true;
  const settings = options.exporter ? null : tracingSettingsFromEnv(options.env ?? process.env);
  if (!settings && !options.exporter) return false;
  const [sdk, { AsyncLocalStorageContextManager }, { W3CTraceContextPropagator }, resources, { UndiciInstrumentation }] = await Promise.all(
    [
      import('@opentelemetry/sdk-trace'),
      import('@opentelemetry/context-async-hooks'),
      import('@opentelemetry/core'),
      import('@opentelemetry/resources'),
      import('@opentelemetry/instrumentation-undici'),
    ],
  );
  const processors: SpanProcessor[] = [];
  if (options.exporter) processors.push(new sdk.SimpleSpanProcessor({ exporter: options.exporter }));
  for (const name of settings?.exporters ?? []) {
    if (name === 'console') processors.push(new sdk.SimpleSpanProcessor({ exporter: new sdk.ConsoleSpanExporter() }));
    else {
      // The exporter reads OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, _HEADERS, _TIMEOUT, _COMPRESSION itself.
      const exporter =
        settings!.protocol === 'http/json'
          ? new (await import('@opentelemetry/exporter-trace-otlp-http')).OTLPTraceExporter()
          : new (await import('@opentelemetry/exporter-trace-otlp-proto')).OTLPTraceExporter();
      processors.push(new sdk.BatchSpanProcessor({ exporter, ...withoutUndefined(settings!.batch) }));
    }
  }
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': serviceName }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }));
  const provider = new sdk.TracerProvider({
    resource,
    sampler: samplerOf(sdk, settings?.sampler ?? { name: 'parentbased_always_on', ratio: 1 }),
    spanProcessors: processors,
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  // Provider calls (undici): a client span under the attempt's span, and `traceparent` on the call.
  const undici = new UndiciInstrumentation({ requireParentforSpans: true });
  undici.setTracerProvider(provider);
  undici.enable();
  tracerInstance = provider.getTracer('inference-gateway');
  enabled = true;
  shutdownHook = async () => {
    undici.disable();
    await provider.shutdown();
  };
  return true;
}

/** Exports the spans still buffered and stops the provider (a graceful stop calls it last). */
export async function shutdownTracing(): Promise<void> {
  const hook = shutdownHook;
  shutdownHook = undefined;
  if (hook) await hook().catch(() => undefined);
}

type SdkModule = typeof import('@opentelemetry/sdk-trace');

function samplerOf(sdk: SdkModule, { name, ratio }: TracingSettings['sampler']): Sampler {
  const root = (kind: string): Sampler =>
    kind === 'always_off'
      ? new sdk.AlwaysOffSampler()
      : kind === 'traceidratio'
        ? new sdk.TraceIdRatioBasedSampler(ratio)
        : new sdk.AlwaysOnSampler();
  if (name.startsWith('parentbased_')) return new sdk.ParentBasedSampler({ root: root(name.slice('parentbased_'.length)) });
  return root(name);
}

/** The trace and span ids of the active span (for log lines), when tracing is on and a span is active. */
export function activeSpanIds(): { traceId: string; spanId: string } | undefined {
  if (!enabled) return undefined;
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

function withoutUndefined<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}
