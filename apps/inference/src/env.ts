import { DatabaseServiceEnv } from '@gw/config';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { fileURLToPath } from 'node:url';

/** Environment of the inference service (see the root README for every variable). */
export class InferenceEnv extends DatabaseServiceEnv {
  /** The model catalog (JSON); the default ships with the service. */
  @IsString()
  MODEL_CATALOG_PATH: string = fileURLToPath(new URL('../catalog/models.json', import.meta.url));

  @IsInt()
  @Min(100)
  @Max(60_000)
  UPSTREAM_CONNECT_TIMEOUT_MS: number = 5_000;

  /** Time to the provider's response head; a fallback endpoint is tried after it. */
  @IsInt()
  @Min(100)
  @Max(600_000)
  UPSTREAM_FIRST_BYTE_TIMEOUT_MS: number = 60_000;

  /** Longest silence while a provider's body is arriving. */
  @IsInt()
  @Min(100)
  @Max(600_000)
  UPSTREAM_BODY_TIMEOUT_MS: number = 120_000;

  /** Keep-alive connections per provider origin. */
  @IsInt()
  @Min(1)
  @Max(4096)
  UPSTREAM_CONNECTIONS: number = 256;
}

export const INFERENCE_ENV = Symbol('INFERENCE_ENV');
