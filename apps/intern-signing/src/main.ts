import 'reflect-metadata';
import { validateEnv } from '@gw/config';
import { QUEUE_GROUPS } from '@gw/contracts';
import { bootstrapService, PrincipalVerifier, natsAuthFromEnv, jetStreamPlacementFromEnv } from '@gw/messaging';
import { AppModule } from './app.module.js';
import { InternSigningEnv } from './env.js';

const env = validateEnv(InternSigningEnv);
await bootstrapService(AppModule.forRoot(env), {
  queue: QUEUE_GROUPS.internSigning,
  natsUrl: env.NATS_URL,
  natsAuth: natsAuthFromEnv(env, 'intern-signing'),
  jetstream: jetStreamPlacementFromEnv(env),
  principals: PrincipalVerifier.fromEnv(env),
  heartbeatMs: env.RPC_HEARTBEAT_MS,
  shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
  healthPort: env.HEALTH_PORT,
  metricsPort: env.METRICS_PORT,
  metricsHost: env.METRICS_HOST,
  handleSignals: true,
});
