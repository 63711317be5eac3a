import 'reflect-metadata';
import { validateEnv } from '@gw/config';
import { bootstrapService, serviceOptionsFromEnv } from '@gw/messaging';
import { AppModule } from './app.module.js';
import { InternSigningEnv } from './env.js';

const env = validateEnv(InternSigningEnv);
await bootstrapService(AppModule.forRoot(env), serviceOptionsFromEnv(env, 'internSigning'));
