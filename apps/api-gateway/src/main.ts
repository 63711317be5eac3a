import 'reflect-metadata';
import { validateEnv } from '@gw/config';
import { shutdownOnSignals } from '@gw/messaging';
import { createGateway, stopGateway } from './bootstrap.js';
import { GatewayEnv } from './env.js';

const env = validateEnv(GatewayEnv);
const app = await createGateway(env);
await app.listen({ port: env.PORT, host: env.HOST });
shutdownOnSignals({ graceMs: env.SHUTDOWN_GRACE_MS, shutdown: () => stopGateway(app, env) });
