import type { Provider } from '@nestjs/common';
import { LimiterStore, RequestRateLimiter } from '@gw/rate-limit';
import { INTERN_SIGNING_ENV, type InternSigningEnv } from '../env.js';
import { DaemonSigner } from './daemon-signer.js';
import { InternTurns } from './intern-turns.js';
import { SigningKeyRing } from './signing-key-ring.js';

export const SIGNING_PROVIDERS: Provider[] = [
  {
    provide: SigningKeyRing,
    inject: [INTERN_SIGNING_ENV],
    useFactory: (env: InternSigningEnv) => SigningKeyRing.parse(env.DAEMON_SIGNING_KEYS),
  },
  { provide: DaemonSigner, inject: [SigningKeyRing], useFactory: (keys: SigningKeyRing) => new DaemonSigner(keys) },
  {
    // Intern turns per intern and window, counted in Redis so every replica shares the count;
    // the turns of one intern that arrive together in one command.
    provide: InternTurns,
    inject: [LimiterStore, INTERN_SIGNING_ENV],
    useFactory: (store: LimiterStore, env: InternSigningEnv) =>
      new InternTurns(
        new RequestRateLimiter(store, { name: 'intern-sign', points: env.SIGN_RATE_LIMIT, durationSeconds: env.SIGN_RATE_WINDOW_SECONDS }),
        env.SIGN_RATE_LIMIT,
        'intern-sign',
      ),
  },
];
