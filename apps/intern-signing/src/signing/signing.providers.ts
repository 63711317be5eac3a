import type { Provider } from '@nestjs/common';
import { LimiterStore, RequestRateLimiter } from '@gw/rate-limit';
import { INTERN_SIGNING_ENV, type InternSigningEnv } from '../env.js';
import { DaemonSigner } from './daemon-signer.js';
import { SigningKeyRing } from './signing-key-ring.js';

/** Intern turns per intern and window, counted in Redis so every replica shares the count. */
export const SIGN_RATE_LIMITER = Symbol('SIGN_RATE_LIMITER');

export const SIGNING_PROVIDERS: Provider[] = [
  {
    provide: SigningKeyRing,
    inject: [INTERN_SIGNING_ENV],
    useFactory: (env: InternSigningEnv) => SigningKeyRing.parse(env.DAEMON_SIGNING_KEYS),
  },
  { provide: DaemonSigner, inject: [SigningKeyRing], useFactory: (keys: SigningKeyRing) => new DaemonSigner(keys) },
  {
    provide: SIGN_RATE_LIMITER,
    inject: [LimiterStore, INTERN_SIGNING_ENV],
    useFactory: (store: LimiterStore, env: InternSigningEnv) =>
      new RequestRateLimiter(store, { name: 'intern-sign', points: env.SIGN_RATE_LIMIT, durationSeconds: env.SIGN_RATE_WINDOW_SECONDS }),
  },
];
