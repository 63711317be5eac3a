import 'reflect-metadata';
import { validateEnv } from '@gw/config';
import { shutdownOnSignals } from '@gw/messaging';
import { closeMetricsServer, initServiceMetrics, startMetricsServer } from '@gw/metrics';
import { initTracing, shutdownTracing } from '@gw/telemetry';
import { createGateway, stopGateway } from './bootstrap.js';
import { GatewayEnv } from './env.js';

const env = validateEnv(GatewayEnv);
initServiceMetrics('api-gateway');
// OpenTelemetry: off unless OTEL_TRACES_EXPORTER names an exporter.
await initTracing('api-gateway');
const app = await createGateway(env);
await app.listen({ port: env.PORT, host: env.HOST });
// Prometheus on a port of its own, never on the public API (issue 16).
const metrics = env.METRICS_PORT ? await startMetricsServer(env.METRICS_PORT, env.METRICS_HOST) : undefined;
shutdownOnSignals({
  graceMs: env.SHUTDOWN_GRACE_MS,
  shutdown: async () => {
    await stopGateway(app, env);
    if (metrics) await closeMetricsServer(metrics);
    await shutdownTracing();
  },
});
