import 'reflect-metadata';
import { validateEnv } from '@gw/config';
import { bootstrapService, serviceOptionsFromEnv } from '@gw/messaging';
import { AppModule } from './app.module.js';
import { ManagementEnv } from './env.js';

const env = validateEnv(ManagementEnv);
await bootstrapService(AppModule.forRoot(env), serviceOptionsFromEnv(env, 'management'));
