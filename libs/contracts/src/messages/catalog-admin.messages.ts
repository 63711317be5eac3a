import { IsBoolean, IsIn, IsInt, IsObject, IsOptional, IsString, Matches, MaxLength, Min, MinLength } from 'class-validator';

/** The name of the operator credential a request was authenticated with (the gateway checked it). */
export const OPERATOR_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const CATALOG_READ_VIEWS = [
  'export',
  'providers',
  'provider',
  'models',
  'model',
  'versions',
  'version',
  'state',
  'endpoint',
] as const;
export type CatalogReadView = (typeof CATALOG_READ_VIEWS)[number];

/** Gateway -> inference: a read of the catalog for an operator. */
export class AdminCatalogReadRequest {
  @Matches(OPERATOR_NAME)
  operator!: string;

  @IsIn(CATALOG_READ_VIEWS)
  view!: CatalogReadView;

  /** A provider or model id (`provider`, `model`), or `<provider>/<upstream model>` (`endpoint`). */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  id?: string;

  /** `version`, or the version `export` reads (default the current one). */
  @IsOptional()
  @IsInt()
  @Min(1)
  version?: number;
}

export const CATALOG_CHANGE_ACTIONS = ['import', 'put_provider', 'delete_provider', 'put_model', 'delete_model', 'rollback'] as const;
export type CatalogChangeAction = (typeof CATALOG_CHANGE_ACTIONS)[number];

/** Gateway -> inference: one change of the catalog for an operator, made as a new version unless `dryRun`. */
export class AdminCatalogChangeRequest {
  @Matches(OPERATOR_NAME)
  operator!: string;

  @IsIn(CATALOG_CHANGE_ACTIONS)
  action!: CatalogChangeAction;

  /** The provider or model id a put or delete names (the path's `{id}`). */
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(256)
  id?: string;

  /** The whole catalog (`import`) or one provider or model (`put_*`), validated by inference as the file is. */
  @IsOptional()
  @IsObject()
  body?: Record<string, unknown>;

  /** `rollback`: the version whose catalog becomes the next version. */
  @IsOptional()
  @IsInt()
  @Min(1)
  version?: number;

  /** Refused with 409 when the current version is another (the operator's `If-Match`). */
  @IsOptional()
  @IsInt()
  @Min(0)
  expectedVersion?: number;

  @IsBoolean()
  dryRun!: boolean;

  /** The operator's client address, kept with the version for its audit row. */
  @IsOptional()
  @IsString()
  @MaxLength(100)
  clientIp?: string;
}

/** Inference -> every inference replica: the catalog's current version is `version`. */
export class CatalogChangedEvent {
  @IsInt()
  @Min(1)
  version!: number;
}

/** Inference -> every inference replica: routing skips (or tries last) `key` until `until` (epoch ms). */
export class EndpointCooledEvent {
  /** `<provider>/<upstream model>`, with `|<credential>` for a provider's wait on one key. */
  @IsString()
  @MinLength(1)
  @MaxLength(600)
  key!: string;

  @IsInt()
  @Min(1)
  until!: number;

  @IsIn(['retry_after', 'failing'])
  reason!: 'retry_after' | 'failing';

  @IsOptional()
  @IsInt()
  @Min(1)
  failures?: number;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  errorType?: string;
}
