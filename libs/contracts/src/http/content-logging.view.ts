import { IsBoolean, IsInt, IsOptional, Max, Min } from 'class-validator';

/** `PUT /v1/content-logging`: turn the workspace's content logging on or off, and how long contents are kept. */
export class SetContentLoggingDto {
  @IsBoolean()
  enabled!: boolean;

  /** Days a stored content is kept (at most the deployment's GENERATION_CONTENT_RETENTION_DAYS). */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(3_650)
  retention_days?: number;
}

/** The workspace's content logging, and the deployment's bounds on it. */
export interface ContentLoggingView {
  enabled: boolean;
  retention_days: number;
  max_retention_days: number;
  /** Largest stored content of one generation; longer texts are cut. */
  max_bytes: number;
  /** False when the deployment has no key to seal contents with: logging cannot be turned on. */
  available: boolean;
}

/** `GET /v1/generation/content`'s `data` (`@openrouter/sdk` `GenerationContentData`). */
export interface GenerationContentView {
  input: { messages: unknown[] } | { prompt: string };
  output: { completion: string | null; reasoning: string | null };
  error: null;
}
