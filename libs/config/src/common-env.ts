import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Variables every process of the system reads. */
export class CommonEnv {
  /** Comma-separated NATS server URLs. */
  @IsString()
  @Matches(/^(nats|tls):\/\/[^,\s]+(,(nats|tls):\/\/[^,\s]+)*$/)
  NATS_URL = 'nats://127.0.0.1:4222';

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  /** Upper bound for one internal request-reply call, in milliseconds. */
  @IsInt()
  @Min(100)
  @Max(600_000)
  RPC_TIMEOUT_MS: number = 15_000;
}

/** Variables of a service that owns a database. */
export class DatabaseServiceEnv extends CommonEnv {
  @IsString()
  @Matches(/^postgres(ql)?:\/\//)
  DATABASE_URL!: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  DATABASE_POOL_SIZE: number = 10;

  /** Port of the HTTP probe endpoints for Kubernetes (`/health/live`, `/health/ready`); 0 = off. */
  @IsInt()
  @Min(0)
  @Max(65_535)
  HEALTH_PORT: number = 0;
}
