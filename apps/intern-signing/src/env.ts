import { DatabaseServiceEnv } from '@gw/config';

/** Environment of the intern-signing service (see the root README for every variable). */
export class InternSigningEnv extends DatabaseServiceEnv {}

export const INTERN_SIGNING_ENV = Symbol('INTERN_SIGNING_ENV');
