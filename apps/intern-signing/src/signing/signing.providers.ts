import type { Provider } from '@nestjs/common';
import { INTERN_SIGNING_ENV, type InternSigningEnv } from '../env.js';
import { DaemonSigner } from './daemon-signer.js';
import { SigningKeyRing } from './signing-key-ring.js';

export const SIGNING_PROVIDERS: Provider[] = [
  { provide: SigningKeyRing, inject: [INTERN_SIGNING_ENV], useFactory: (env: InternSigningEnv) => SigningKeyRing.parse(env.DAEMON_SIGNING_KEYS) },
  { provide: DaemonSigner, inject: [SigningKeyRing], useFactory: (keys: SigningKeyRing) => new DaemonSigner(keys) },
];
