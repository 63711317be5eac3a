import 'reflect-metadata';
import { validateEnv } from '@gw/config';
import { QUEUE_GROUPS } from '@gw/contracts';
import { bootstrapService, PrincipalVerifier, natsAuthFromEnv, jetStreamPlacementFromEnv } from '@gw/messaging';
import { AppModule } from './app.module.js';
import { InferenceEnv } from './env.js';

const env = validateEnv(InferenceEnv);
await bootstrapService(AppModule.forRoot(env), {
  queue: QUEUE_GROUPS.inference,
  natsUrl: env.NATS_URL,
  natsAuth: natsAuthFromEnv(env, 'inference'),
  jetstream: jetStreamPlacementFromEnv(env),
  principals: PrincipalVerifier.fromEnv(env),
  heartbeatMs: env.RPC_HEARTBEAT_MS,
  shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
  healthPort: env.HEALTH_PORT,
  metricsPort: env.METRICS_PORT,
  metricsHost: env.METRICS_HOST,
  handleSignals: true,
});
