import 'reflect-metadata';
import { validateEnv } from '@gw/config';
import { bootstrapService, serviceOptionsFromEnv } from '@gw/messaging';
import { initBatchMetrics } from '@gw/metrics';
import { AppModule } from './app.module.js';
import { BatchEnv } from './env.js';

const env = validateEnv(BatchEnv);
// Batch series (lines by state, lines/s, native batches in flight) at zero from the start (issue 16).
initBatchMetrics();
await bootstrapService(AppModule.forRoot(env), serviceOptionsFromEnv(env, 'batch'));
