import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Min,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

export const PROVIDER_FORMATS = ['openai', 'anthropic', 'bedrock', 'azure', 'gemini', 'vertex'] as const;
export type ProviderFormat = (typeof PROVIDER_FORMATS)[number];

/** A non-negative decimal written as a string, so prices never pass through a float. */
const DECIMAL = /^\d+(\.\d+)?$/;

export class GuardrailConfig {
  @IsString()
  @MinLength(1)
  identifier!: string;

  @IsString()
  @MinLength(1)
  version!: string;

  @IsOptional()
  @IsIn(['enabled', 'disabled', 'enabled_full'])
  trace?: 'enabled' | 'disabled' | 'enabled_full';
}

/**
 * Where a `vertex` provider's models live: `{baseUrl}/projects/{project}/locations/{location}/publishers/google/models/{model}`.
 * The credential (the provider's apiKey) is a service account's JSON or the path of its file.
 */
export class VertexConfig {
  /** Unset or empty: the service account's own project_id. */
  @IsOptional()
  @IsString()
  project?: string;

  @Matches(/^[a-z0-9-]+$/)
  location!: string;

  /** Replaces Google's OAuth token endpoint (a private endpoint, or the provider simulator). */
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/)
  tokenUrl?: string;
}

export class ProviderConfig {
  @Matches(/^[a-z0-9][a-z0-9-]*$/)
  id!: string;

  @IsString()
  name!: string;

  @IsIn(PROVIDER_FORMATS)
  format!: ProviderFormat;

  /** Bedrock: empty means the SDK's own endpoint for the region (or `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`). */
  @ValidateIf((provider: ProviderConfig) => provider.format !== 'bedrock' || provider.baseUrl !== '')
  @Matches(/^https?:\/\/\S+$/)
  baseUrl!: string;

  /**
   * Empty means "not configured": endpoints on this provider are not offered. Bedrock is
   * configured by its `region` and signs with the AWS credential chain, or with the static keys
   * this holds as `{"accessKeyId", "secretAccessKey"}` JSON.
   */
  @IsString()
  apiKey!: string;

  /** Bedrock: the AWS region its calls are signed for (empty: not configured). */
  @IsOptional()
  @IsString()
  region?: string;

  /** Azure OpenAI: the `api-version` of the deployments API; unset: the v1 API (`/openai/v1`). */
  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}(-preview)?$/)
  apiVersion?: string;

  /** Bedrock: a guardrail applied to every call (Converse `guardrailConfig`). */
  @IsOptional()
  @ValidateNested()
  @Type(() => GuardrailConfig)
  guardrail?: GuardrailConfig;

  /**
   * An `openai`-format provider that also serves OpenAI's Responses API at `{baseUrl}/responses`:
   * `POST /v1/responses` calls it natively instead of translating to chat completions (ADR 0023).
   */
  @IsOptional()
  @IsBoolean()
  responsesApi?: boolean;

  /** Project and location of a `vertex`-format provider (required for that format). */
  @IsOptional()
  @ValidateNested()
  @Type(() => VertexConfig)
  vertex?: VertexConfig;
}

export class PricingConfig {
  @Matches(DECIMAL)
  prompt!: string;

  @Matches(DECIMAL)
  completion!: string;

  @IsOptional()
  @Matches(DECIMAL)
  cachedPrompt?: string;

  /** Per prompt token written to the provider's cache (Anthropic: 1.25x the prompt price); default the prompt price. */
  @IsOptional()
  @Matches(DECIMAL)
  cacheWritePrompt?: string;

  /** Per audio prompt token, where the model prices audio apart (default the prompt price). */
  @IsOptional()
  @Matches(DECIMAL)
  audioPrompt?: string;

  /** Per audio / image completion token, where the model prices them apart (default the completion price). */
  @IsOptional()
  @Matches(DECIMAL)
  audioCompletion?: string;

  @IsOptional()
  @Matches(DECIMAL)
  imageCompletion?: string;
}

/**
 * The endpoint's model can run through its provider's batch API (OpenAI's Batch API over its
 * Files API, Anthropic's Message Batches; ADR 0047) at `pricing`, the provider's batch price
 * (typically half the live price). Absent: batches of this endpoint are run by the gateway.
 */
export class BatchConfig {
  @ValidateNested()
  @Type(() => PricingConfig)
  pricing!: PricingConfig;
}

export class EndpointConfig {
  @IsString()
  provider!: string;

  @IsString()
  @MinLength(1)
  upstreamModel!: string;

  @ValidateNested()
  @Type(() => PricingConfig)
  pricing!: PricingConfig;

  /** When one provider of a model takes fewer (or other) parameters than the model's list says. */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  supportedParameters?: string[];
  /**
   * The service tiers this endpoint takes, in the spec's vocabulary (routing/service-tier.ts);
   * unset: what its provider's format offers. `ultrafast` marks an ultrafast endpoint.
   */
  @IsOptional()
  @IsArray()
  @IsIn(['auto', 'default', 'flex', 'priority', 'scale', 'ultrafast'], { each: true })
  serviceTiers?: string[];

  @IsOptional()
  @ValidateNested()
  @Type(() => BatchConfig)
  batch?: BatchConfig;
}

/** A public model id (also the spelling of its aliases). */
export const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]*$/;

/** A model on its way out: still served, listed with its replacement, which callers should move to. */
export class DeprecationConfig {
  /** The day it stops being offered (`YYYY-MM-DD`), if announced. */
  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}$/)
  sunset?: string;

  /** The model id to use instead (a model of the catalog). */
  @IsOptional()
  @Matches(MODEL_ID)
  replacement?: string;
}

export class ModelConfig {
  @Matches(MODEL_ID)
  id!: string;

  @IsString()
  name!: string;

  @IsInt()
  @Min(1)
  contextLength!: number;

  @IsArray()
  @IsString({ each: true })
  supportedParameters!: string[];

  /** What the model reads; text only unless the catalog says more. */
  @IsOptional()
  @IsArray()
  @IsIn(['text', 'image', 'file', 'audio', 'video'], { each: true })
  inputModalities?: string[];

  @IsOptional()
  @IsArray()
  @IsIn(['text', 'image', 'audio', 'embeddings'], { each: true })
  outputModalities?: string[];

  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => EndpointConfig)
  endpoints!: EndpointConfig[];

  /**
   * False keeps a model callable but out of GET /v1/models: the simulator's fault fixtures
   * (a stream cut mid-way, an endpoint that always fails) that tests call by name and that a
   * user listing what works should not be offered.
   */
  @IsOptional()
  @IsBoolean()
  listed?: boolean;

  /** Other ids a request may name this model by (an old spelling, a short name); never listed apart. */
  @IsOptional()
  @IsArray()
  @Matches(MODEL_ID, { each: true })
  aliases?: string[];

  @IsOptional()
  @ValidateNested()
  @Type(() => DeprecationConfig)
  deprecation?: DeprecationConfig;
}

export class CatalogConfig {
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ProviderConfig)
  providers!: ProviderConfig[];

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => ModelConfig)
  models!: ModelConfig[];
}

/** Whether the gateway holds its own credential for this provider (BYOK aside). */
export function hasGatewayCredential(provider: ProviderConfig): boolean {
  return provider.format === 'bedrock' ? (provider.region ?? '') !== '' : provider.apiKey !== '';
}
