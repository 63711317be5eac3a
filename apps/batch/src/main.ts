import 'reflect-metadata';
import { validateEnv } from '@gw/config';
import { QUEUE_GROUPS } from '@gw/contracts';
import { bootstrapService, PrincipalVerifier, natsAuthFromEnv, jetStreamPlacementFromEnv } from '@gw/messaging';
import { initBatchMetrics } from '@gw/metrics';
import { AppModule } from './app.module.js';
import { BatchEnv } from './env.js';

const env = validateEnv(BatchEnv);
// Batch series (lines by state, lines/s, native batches in flight) at zero from the start (issue 16).
initBatchMetrics();
await bootstrapService(AppModule.forRoot(env), {
  queue: QUEUE_GROUPS.batch,
  natsUrl: env.NATS_URL,
  natsAuth: natsAuthFromEnv(env, 'batch'),
  jetstream: jetStreamPlacementFromEnv(env),
  principals: PrincipalVerifier.fromEnv(env),
  heartbeatMs: env.RPC_HEARTBEAT_MS,
  shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
  healthPort: env.HEALTH_PORT,
  metricsPort: env.METRICS_PORT,
  metricsHost: env.METRICS_HOST,
  handleSignals: true,
});
