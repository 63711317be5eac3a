import { DatabaseServiceEnv, WithRedisEnv } from '@gw/config';
import { IsInt, Max, Min } from 'class-validator';
import { IsSigningKeyRing } from './signing/signing-key-ring.js';

/** Environment of the intern-signing service (every variable: docs/configuration.md); Redis: the sign rate limiter's. */
export class InternSigningEnv extends WithRedisEnv(DatabaseServiceEnv) {
  /**
   * Ed25519 keys that sign daemon requests, `<kid>:<base64 32-byte seed>[,...]`: the first
   * signs, the others stay published in the JWKS. A Kubernetes Secret in
   * production; `npm run up` makes a dev one in `.stack/daemon-signing-keys`.
   */
  @IsSigningKeyRing()
  DAEMON_SIGNING_KEYS!: string;

  /** Signatures (intern turns) allowed per intern per window; past it 429 `rate_limited`. */
  @IsInt()
  @Min(1)
  @Max(10_000_000)
  SIGN_RATE_LIMIT: number = 1_200;

  @IsInt()
  @Min(1)
  @Max(86_400)
  SIGN_RATE_WINDOW_SECONDS: number = 60;
}

export const INTERN_SIGNING_ENV = Symbol('INTERN_SIGNING_ENV');
