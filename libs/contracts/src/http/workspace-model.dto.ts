import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  Max,
  MaxLength,
  MinLength,
  ValidateNested,
} from 'class-validator';
import { BOUNDED_PRICE_PATTERN, IsAzureApiVersion, IsDrawWeight, IsEndpointPriority, IsTokenCount } from './model-rules.js';

/*
 * A workspace's own model (`PUT /v1/workspace/models/{id}`): the admin API's model shape
 * with endpoints that name their URL and the workspace's BYOK credentials instead of a catalog
 * provider. Validated by the gateway and again by management, which stores it. The rules it shares
 * with the operator's catalog (ids, prices, priority, weights) are model-rules.ts's.
 */

/** The wire formats a workspace's server may speak: OpenAI's (vLLM, Ollama, LM Studio, ...) and Azure OpenAI's. */
export const WORKSPACE_ENDPOINT_FORMATS = ['openai', 'azure'] as const;
/** A workspace model either chats or embeds (the catalog's `outputModalities`, one of the two). */
const WORKSPACE_OUTPUT_MODALITIES = ['text', 'embeddings'] as const;
/** http(s), no credentials, query or fragment (a path is kept: `/v1`, an API gateway's prefix). */
const ENDPOINT_URL = /^https?:\/\/[^\s/?#@]+(\/[^\s?#@]*)?$/;

export class WorkspaceEndpointCredentialDto {
  /** A BYOK credential of the workspace (its key is sent; its allow-lists apply). */
  @IsUUID()
  byokId!: string;

  /** Share among the endpoint's credentials (a weighted draw per request; 0 drains it). */
  @IsDrawWeight()
  weight?: number;
}

/** Per-token prices the workspace declares (its own server's cost); default 0. Charged as BYOK. */
export class WorkspaceEndpointPricingDto {
  @Matches(BOUNDED_PRICE_PATTERN)
  prompt!: string;

  @Matches(BOUNDED_PRICE_PATTERN)
  completion!: string;
}

export class WorkspaceEndpointDto {
  @IsIn(WORKSPACE_ENDPOINT_FORMATS)
  format!: (typeof WORKSPACE_ENDPOINT_FORMATS)[number];

  /** `https://llm.example.com/v1` (OpenAI format: `{baseUrl}/chat/completions`), or an Azure resource. */
  @Matches(ENDPOINT_URL, { message: 'baseUrl must be an http(s) URL without credentials, query or fragment' })
  @MaxLength(2048)
  baseUrl!: string;

  /** The model name the server knows (Azure: the deployment). */
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  upstreamModel!: string;

  /** Azure: the deployments API's `api-version`; unset: Azure's v1 API. */
  @IsAzureApiVersion()
  apiVersion?: string;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(8)
  @ValidateNested({ each: true })
  @Type(() => WorkspaceEndpointCredentialDto)
  credentials!: WorkspaceEndpointCredentialDto[];

  /** Lower first (default 0); equal priorities share by `weight`. */
  @IsEndpointPriority()
  priority?: number;

  @IsDrawWeight()
  weight?: number;

  @IsOptional()
  @ValidateNested()
  @Type(() => WorkspaceEndpointPricingDto)
  pricing?: WorkspaceEndpointPricingDto;
}

export class WorkspaceModelDto {
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name!: string;

  @IsTokenCount()
  @Max(100_000_000)
  contextLength!: number;

  @IsOptional()
  @IsTokenCount()
  maxCompletionTokens?: number;

  /** The request parameters its server takes (default: those of OpenAI's chat API that servers commonly take). */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(64)
  @IsString({ each: true })
  supportedParameters?: string[];

  /** `["embeddings"]`: the server makes vectors (POST /v1/embeddings, batches of them); default `["text"]`, a chat model. */
  @IsOptional()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(1)
  @IsIn(WORKSPACE_OUTPUT_MODALITIES, { each: true })
  outputModalities?: Array<(typeof WORKSPACE_OUTPUT_MODALITIES)[number]>;

  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(16)
  @ValidateNested({ each: true })
  @Type(() => WorkspaceEndpointDto)
  endpoints!: WorkspaceEndpointDto[];
}

/** A workspace model as the API answers it: the stored fields, its id and times. */
export interface WorkspaceModelView {
  object: 'workspace.model';
  id: string;
  workspace_id: string;
  name: string;
  contextLength: number;
  maxCompletionTokens?: number;
  supportedParameters?: string[];
  outputModalities?: Array<'text' | 'embeddings'>;
  endpoints: Array<{
    format: 'openai' | 'azure';
    baseUrl: string;
    upstreamModel: string;
    apiVersion?: string;
    credentials: Array<{ byokId: string; weight?: number }>;
    priority?: number;
    weight?: number;
    pricing?: { prompt: string; completion: string };
  }>;
  created_at: string;
  updated_at: string;
}

export interface WorkspaceModelListView {
  object: 'list';
  data: WorkspaceModelView[];
}
