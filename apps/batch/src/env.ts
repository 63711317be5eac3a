import { DatabaseServiceEnv } from '@gw/config';

/** Environment of the batch service (see the root README for every variable). */
export class BatchEnv extends DatabaseServiceEnv {}

export const BATCH_ENV = Symbol('BATCH_ENV');
