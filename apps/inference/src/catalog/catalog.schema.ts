import { Type } from 'class-transformer';
import {
  ArrayMinSize,
  IsObject,
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

import { IsAzureApiVersion, IsDrawWeight, IsEndpointPriority, IsTokenCount, CATALOG_MODEL_ID_PATTERN, PRICE_PATTERN } from '@gw/contracts';
import { hostProfile, OPENAI_HOSTS, type OpenAiHost } from '../providers/openai/hosts/openai-hosts.js';

const PROVIDER_FORMATS = ['openai', 'anthropic', 'bedrock', 'azure', 'gemini', 'vertex'] as const;
export type ProviderFormat = (typeof PROVIDER_FORMATS)[number];

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
 * The credential (the provider's apiKey) is a service account's JSON or the path of its file, or for the
 * operator's providers an `external_account` configuration (workload identity federation; then `project` is required).
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

/**
 * An `azure` provider that authenticates with a Microsoft Entra ID app (client-credentials flow)
 * instead of an `api-key`: the provider's apiKey is then the app's client secret. Empty ids (an
 * unset environment variable) mean not configured.
 */
export class EntraConfig {
  /** The directory (tenant) id, or its domain. */
  @Matches(/^[A-Za-z0-9.-]*$/)
  tenantId!: string;

  /** The app registration's application (client) id. */
  @Matches(/^[A-Za-z0-9-]*$/)
  clientId!: string;

  /** Replaces Microsoft's public-cloud authority `https://login.microsoftonline.com` (a sovereign cloud, or the provider simulator); https only. */
  @IsOptional()
  @Matches(/^https:\/\/[^\s/]+$/)
  authorityHost?: string;
}

/**
 * How an `openai`-format provider is authenticated when its host's default does not fit:
 * `bearer` (Authorization: Bearer), `header` (the key in a header of that name), `none`.
 */
export class ProviderAuth {
  @IsIn(['bearer', 'header', 'none'])
  kind!: 'bearer' | 'header' | 'none';

  @ValidateIf((auth: ProviderAuth) => auth.kind === 'header')
  @Matches(/^[A-Za-z0-9-]+$/)
  header?: string;
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
  @IsAzureApiVersion()
  apiVersion?: string;

  /** Azure OpenAI: authenticate with this Entra ID app (the apiKey is its client secret) instead of an `api-key`. */
  @IsOptional()
  @ValidateNested()
  @Type(() => EntraConfig)
  entra?: EntraConfig;

  /**
   * Azure OpenAI: authenticate with the managed identity of the host inference runs on (App
   * Service, a VM, AKS), through Microsoft's identity library; which identity: AZURE_MANAGED_IDENTITY_CLIENT_ID.
   * Neither an apiKey nor an `entra` app with it. BYOK credentials never use it.
   */
  @IsOptional()
  @IsBoolean()
  managedIdentity?: boolean;

  /** Bedrock: a guardrail applied to every call (Converse `guardrailConfig`). */
  @IsOptional()
  @ValidateNested()
  @Type(() => GuardrailConfig)
  guardrail?: GuardrailConfig;

  /**
   * An `openai`-format provider that also serves OpenAI's Responses API at `{baseUrl}/responses`
   * (an `azure` one: at `/openai/v1/responses`, or `/openai/responses?api-version=` with its
   * apiVersion): `POST /v1/responses` calls it natively instead of translating to chat completions.
   */
  @IsOptional()
  @IsBoolean()
  responsesApi?: boolean;

  /** Project and location of a `vertex`-format provider (required for that format). */
  @IsOptional()
  @ValidateNested()
  @Type(() => VertexConfig)
  vertex?: VertexConfig;

  /**
   * Which OpenAI-compatible host an `openai`-format provider is (providers/openai/hosts): the
   * fields it refuses or renames, its usage and error shapes. Unset: OpenAI's own rules.
   */
  @IsOptional()
  @IsIn(OPENAI_HOSTS)
  host?: OpenAiHost;

  @IsOptional()
  @ValidateNested()
  @Type(() => ProviderAuth)
  auth?: ProviderAuth;

  /** Static headers sent on every call (OpenRouter's `HTTP-Referer` and `X-Title`). */
  @IsOptional()
  @IsObject()
  headers?: Record<string, string>;
}

/** The token prices every price set has: the base prices, a length tier's and a time window's. */
class TokenPrices {
  @Matches(PRICE_PATTERN)
  prompt!: string;

  @Matches(PRICE_PATTERN)
  completion!: string;

  @IsOptional()
  @Matches(PRICE_PATTERN)
  cachedPrompt?: string;

  /** Per prompt token written to the provider's cache (Anthropic: 1.25x the prompt price); default the prompt price. */
  @IsOptional()
  @Matches(PRICE_PATTERN)
  cacheWritePrompt?: string;
}

export class PricingConfig extends TokenPrices {
  /** Per audio prompt token, where the model prices audio apart (default the prompt price). */
  @IsOptional()
  @Matches(PRICE_PATTERN)
  audioPrompt?: string;

  /** Per audio / image completion token, where the model prices them apart (default the completion price). */
  @IsOptional()
  @Matches(PRICE_PATTERN)
  audioCompletion?: string;

  @IsOptional()
  @Matches(PRICE_PATTERN)
  imageCompletion?: string;

  /** Per reasoning token, where the provider prices thinking apart from output (default the completion price). */
  @IsOptional()
  @Matches(PRICE_PATTERN)
  reasoning?: string;

  /** Per image prompt token, where images are priced apart (default the prompt price). */
  @IsOptional()
  @Matches(PRICE_PATTERN)
  imagePrompt?: string;

  /** A fee per request on top of tokens (Perplexity's search fee at its default context size). */
  @IsOptional()
  @Matches(PRICE_PATTERN)
  request?: string;

  /** Per server-side web search the provider runs (xAI's search tools). */
  @IsOptional()
  @Matches(PRICE_PATTERN)
  webSearch?: string;

  /**
   * Prices by prompt length: a request whose prompt exceeds `promptTokensAbove` pays that tier's
   * prices on all its tokens (Gemini Pro and Claude above 200K, Claude Haiku 5.5 above 100K).
   */
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => PriceTier)
  tiers?: PriceTier[];

  /**
   * Prices by time of day (UTC): a call that started inside a window pays its prices instead of
   * these (and instead of `tiers`); the first window that holds the call's start applies
   * (DeepSeek's off-peak hours). Shown in /v1/models as `pricing.time_windows`.
   */
  @IsOptional()
  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => PriceWindow)
  timeWindows?: PriceWindow[];
}

export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];
const CLOCK = /^([01]\d|2[0-3]):[0-5]\d$/;

/**
 * A daily window in UTC: `start` inclusive, `end` exclusive, `HH:MM`; a window whose end is not
 * after its start runs past midnight (`16:30`-`00:30`), one whose start equals its end is the
 * whole day. `days` are the days the window starts on (default every day).
 */
export class PriceWindow extends TokenPrices {
  @IsString()
  @MinLength(1)
  name!: string;

  @IsOptional()
  @IsArray()
  @IsIn(WEEKDAYS, { each: true })
  days?: Weekday[];

  @Matches(CLOCK)
  start!: string;

  @Matches(CLOCK)
  end!: string;
}

export class PriceTier extends TokenPrices {
  @IsInt()
  @Min(1)
  promptTokensAbove!: number;
}

/** Where a price was read: the sheet's URL, the day it was read, what the page said of its own date. */
export class PriceSource {
  @Matches(/^https:\/\/\S+$/)
  url!: string;

  @Matches(/^\d{4}-\d{2}-\d{2}$/)
  read!: string;

  @IsOptional()
  @IsString()
  pageDate?: string;

  @IsOptional()
  @IsString()
  note?: string;
}

/** Prices of the provider's other service tiers, where it sells them (OpenAI's priority and flex). */
export class ServiceTierPricing {
  @IsOptional()
  @ValidateNested()
  @Type(() => PricingConfig)
  priority?: PricingConfig;

  @IsOptional()
  @ValidateNested()
  @Type(() => PricingConfig)
  flex?: PricingConfig;
}

/** Perplexity's per-request search fee by `search_context_size`. */
export class SearchContextFees {
  @Matches(PRICE_PATTERN)
  low!: string;

  @Matches(PRICE_PATTERN)
  medium!: string;

  @Matches(PRICE_PATTERN)
  high!: string;
}

/**
 * The endpoint's model can run through its provider's batch API (OpenAI's Batch API over its
 * Files API, Anthropic's Message Batches) at `pricing`, the provider's batch price
 * (typically half the live price). Absent: batches of this endpoint are run by the gateway.
 */
export class BatchConfig {
  @ValidateNested()
  @Type(() => PricingConfig)
  pricing!: PricingConfig;
}

/** One of the gateway's own keys for an endpoint (`${VAR}` advised; empty: unset, skipped). */
export class EndpointCredentialConfig {
  @IsString()
  apiKey!: string;

  /** Share of the endpoint's calls made with this key (a weighted draw per request; 0 drains it). */
  @IsDrawWeight()
  weight?: number;
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

  /** The share of the live price the provider's own batch API charges ("0.5"), where the gateway does not call that API yet. */
  @IsOptional()
  @Matches(PRICE_PATTERN)
  batchDiscount?: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => ServiceTierPricing)
  serviceTierPricing?: ServiceTierPricing;

  @IsOptional()
  @ValidateNested()
  @Type(() => SearchContextFees)
  searchContextFees?: SearchContextFees;

  /** Where this endpoint's prices come from (the generated catalog names one for every endpoint). */
  @IsOptional()
  @ValidateNested()
  @Type(() => PriceSource)
  source?: PriceSource;

  /** Endpoints of a lower priority are tried first (default 0); equal priorities share by `weight`. */
  @IsEndpointPriority()
  priority?: number;

  /**
   * This endpoint's share of requests among those of its priority (a weighted random draw per
   * request; 0 drains it). Where no endpoint of a priority has one, they keep catalog order.
   */
  @IsDrawWeight()
  weight?: number;

  /**
   * The gateway's keys for this endpoint in place of its provider's one (several accounts of one
   * provider), drawn by weight per request, each an attempt of its own (a 429 moves to the next).
   */
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ValidateNested({ each: true })
  @Type(() => EndpointCredentialConfig)
  credentials?: EndpointCredentialConfig[];

  /**
   * A test fixture that fails on purpose (the dev catalog's simulator faults): its failures never
   * cool it down for other callers, who would see its model's endpoints reordered (retry-after holds stay).
   */
  @IsOptional()
  @IsBoolean()
  failsOnPurpose?: boolean;
}

/** A model on its way out: still served, listed with its replacement, which callers should move to. */
export class DeprecationConfig {
  /** The day it stops being offered (`YYYY-MM-DD`), if announced. */
  @IsOptional()
  @Matches(/^\d{4}-\d{2}-\d{2}$/)
  sunset?: string;

  /** The model id to use instead (a model of the catalog). */
  @IsOptional()
  @Matches(CATALOG_MODEL_ID_PATTERN)
  replacement?: string;
}

export class ModelConfig {
  @Matches(CATALOG_MODEL_ID_PATTERN)
  id!: string;

  @IsString()
  name!: string;

  @IsTokenCount()
  contextLength!: number;

  /** The most tokens one answer may have, where the provider says. */
  @IsOptional()
  @IsTokenCount()
  maxCompletionTokens?: number;

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
  @Matches(CATALOG_MODEL_ID_PATTERN, { each: true })
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
  if (provider.format === 'bedrock') return (provider.region ?? '') !== '';
  if (provider.managedIdentity) return true;
  if (provider.entra) return provider.apiKey !== '' && provider.entra.tenantId !== '' && provider.entra.clientId !== '';
  // A self-hosted server without keys (Ollama, LM Studio) needs none: listing it is its configuration.
  if (
    provider.auth?.kind === 'none' ||
    (provider.auth === undefined && provider.host !== undefined && hostProfile(provider.host).auth === 'none')
  )
    return true;
  return provider.apiKey !== '';
}
