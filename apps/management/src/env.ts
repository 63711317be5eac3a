import { DatabaseServiceEnv } from '@gw/config';
import { IsKeyEncryptionKeys } from './byok/key-ring.js';

/** Environment of the management service (see the root README for every variable). */
export class ManagementEnv extends DatabaseServiceEnv {
  /** BYOK key-encryption keys, `v2:<base64 32 bytes>,v1:<...>`; the first is current (ADR byok). */
  @IsKeyEncryptionKeys()
  BYOK_KEKS!: string;
}

export const MANAGEMENT_ENV = Symbol('MANAGEMENT_ENV');
