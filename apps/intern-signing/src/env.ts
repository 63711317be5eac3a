import { DatabaseServiceEnv } from '@gw/config';
import { IsSigningKeyRing } from './signing/signing-key-ring.js';

/** Environment of the intern-signing service (see the root README for every variable). */
export class InternSigningEnv extends DatabaseServiceEnv {
  /**
   * Ed25519 keys that sign daemon requests, `<kid>:<base64 32-byte seed>[,...]`: the first
   * signs, the others stay published in the JWKS (ADR 0021). A Kubernetes
   * Secret in production; `npm run up` makes a dev one in `.stack/daemon-signing-keys`.
   */
  @IsSigningKeyRing()
  DAEMON_SIGNING_KEYS!: string;
}

export const INTERN_SIGNING_ENV = Symbol('INTERN_SIGNING_ENV');
