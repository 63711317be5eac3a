import 'reflect-metadata';
import { validateEnv } from '@gw/config';
import { createGateway } from './bootstrap.js';
import { GatewayEnv } from './env.js';

const env = validateEnv(GatewayEnv);
const app = await createGateway(env);
await app.listen({ port: env.PORT, host: env.HOST });
