import 'reflect-metadata';
import { validateEnv } from '@gw/config';
import { bootstrapService, serviceOptionsFromEnv } from '@gw/messaging';
import { AppModule } from './app.module.js';
import { InferenceEnv } from './env.js';

const env = validateEnv(InferenceEnv);
await bootstrapService(AppModule.forRoot(env), serviceOptionsFromEnv(env, 'inference'));
