import { describe, expect, it } from 'vitest';
import { currentRequestId, logContext, runWithRequestId, tracingEnabled, tracingSettingsFromEnv } from './index.js';

describe('tracing settings (the standard OTEL_* variables)', () => {
  it('are off by default, with `none`, and with OTEL_SDK_DISABLED', () => {
    expect(tracingSettingsFromEnv({})).toBeNull();
    expect(tracingSettingsFromEnv({ OTEL_TRACES_EXPORTER: 'none' })).toBeNull();
    expect(tracingSettingsFromEnv({ OTEL_TRACES_EXPORTER: ' ' })).toBeNull();
    expect(tracingSettingsFromEnv({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' })).toBeNull();
    expect(tracingEnabled()).toBe(false);
  });

  it('read the exporter, protocol, sampler and batch settings', () => {
    expect(tracingSettingsFromEnv({ OTEL_TRACES_EXPORTER: 'otlp' })).toEqual({
      exporters: ['otlp'],
      protocol: 'http/protobuf',
      sampler: { name: 'parentbased_always_on', ratio: 1 },
      batch: { scheduledDelayMillis: undefined, exportTimeoutMillis: undefined, maxQueueSize: undefined, maxExportBatchSize: undefined },
    });
    const settings = tracingSettingsFromEnv({
      OTEL_TRACES_EXPORTER: 'otlp,console',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '200',
    });
    expect(settings).toMatchObject({
      exporters: ['otlp', 'console'],
      protocol: 'http/json',
      sampler: { name: 'parentbased_traceidratio', ratio: 0.25 },
      batch: { scheduledDelayMillis: 200 },
    });
  });

  it('refuse what this build cannot honour, at start', () => {
    expect(() => tracingSettingsFromEnv({ OTEL_TRACES_EXPORTER: 'zipkin' })).toThrow(/not supported/);
    expect(() => tracingSettingsFromEnv({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/not supported/);
    expect(() => tracingSettingsFromEnv({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER: 'sometimes' })).toThrow(/not supported/);
    expect(() => tracingSettingsFromEnv({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(/0 to 1/);
    expect(() => tracingSettingsFromEnv({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_BSP_MAX_QUEUE_SIZE: 'lots' })).toThrow(/integer/);
  });
});

describe('request context and log fields (tracing off)', () => {
  it('give the request id to everything the request runs, across awaits, and nothing outside', async () => {
    expect(currentRequestId()).toBeUndefined();
    expect(logContext()).toEqual({});
    const seen = await runWithRequestId('req-42', async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      return { id: currentRequestId(), fields: logContext() };
    });
    expect(seen).toEqual({ id: 'req-42', fields: { request_id: 'req-42' } });
    expect(currentRequestId()).toBeUndefined();
  });

  it('ignore a missing or oversized id', () => {
    expect(runWithRequestId(undefined, () => currentRequestId())).toBeUndefined();
    expect(runWithRequestId('x'.repeat(129), () => currentRequestId())).toBeUndefined();
  });

  it('hand pino a fresh object each time (pino merges the line into it)', () => {
    runWithRequestId('req-1', () => expect(logContext()).not.toBe(logContext()));
    expect(logContext()).not.toBe(logContext());
  });
});
