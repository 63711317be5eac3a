import { DatabaseServiceEnv } from '@gw/config';

/** Environment of the management service (see the root README for every variable). */
export class ManagementEnv extends DatabaseServiceEnv {}

export const MANAGEMENT_ENV = Symbol('MANAGEMENT_ENV');
