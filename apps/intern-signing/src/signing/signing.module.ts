import { Module } from '@nestjs/common';
import { InternsModule } from '../interns/interns.module.js';
import { DaemonSigningController } from './daemon-signing.controller.js';
import { SIGNING_PROVIDERS } from './signing.providers.js';

/** Daemon signing (Ed25519, keys from DAEMON_SIGNING_KEYS) and the published keys. */
@Module({
  imports: [InternsModule],
  controllers: [DaemonSigningController],
  providers: [...SIGNING_PROVIDERS],
})
export class SigningModule {}
