import 'reflect-metadata';
import { validateEnv } from '@gw/config';
import { QUEUE_GROUPS } from '@gw/contracts';
import { natsAuthFromEnv } from '@gw/messaging';
import { InternSigningEnv } from './env.js';
import { startInternSigningReplica } from './signing/serve-signing.js';

const env = validateEnv(InternSigningEnv);
await startInternSigningReplica(env, {
  queue: QUEUE_GROUPS.internSigning,
  natsUrl: env.NATS_URL,
  natsAuth: natsAuthFromEnv(env, 'intern-signing'),
  heartbeatMs: env.RPC_HEARTBEAT_MS,
  shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
  healthPort: env.HEALTH_PORT,
  metricsPort: env.METRICS_PORT,
  handleSignals: true,
});
