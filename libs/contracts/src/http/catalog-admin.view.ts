/*
 * The operator's admin API over the model catalog (`/v1/admin/...`). Change records are built to
 * be read by an audit log as they are: who, when, what action, and each changed path's before/after.
 */

/** One difference between two catalog documents; `path` names the entity by id (`models[openai/gpt-4o].endpoints[0].pricing.prompt`). */
export interface CatalogDiffEntry {
  op: 'add' | 'remove' | 'change';
  path: string;
  before?: unknown;
  after?: unknown;
}

/** One stored version of the catalog: who made it, when, how, and what it changed against the one before. */
export interface CatalogVersionView {
  object: 'catalog.version';
  version: number;
  created_at: string;
  /** The operator credential's name, or `file:<paths>` for a version taken from the catalog files. */
  author: string;
  /** `seed`, `file`, `import`, `put_provider`, `delete_provider`, `put_model`, `delete_model`, `rollback`. */
  action: string;
  source: 'file' | 'admin';
  changes: CatalogDiffEntry[];
}

export interface CatalogVersionListView {
  object: 'list';
  data: CatalogVersionView[];
}

/** A change's answer: the version it made (or, on a dry run or no change, the current one) and its diff. */
export interface CatalogChangeView {
  object: 'catalog.change';
  dry_run: boolean;
  /** False when the change leaves the catalog as it is (no version is made). */
  changed: boolean;
  previous_version: number;
  version: number;
  changes: CatalogDiffEntry[];
}

/** The whole catalog document of a version, exactly as stored (the export's bytes). */
export interface CatalogDocumentView {
  version: number;
  document: string;
}

/** Providers or models of the current catalog, as the document holds them. */
export interface CatalogEntriesView {
  object: 'list';
  version: number;
  data: Record<string, unknown>[];
}

/** A replica's catalog as it runs: which version it serves, and what it could not load. */
export interface CatalogStateView {
  version: number;
  /** `ok`, or `stale`: a newer version exists that this replica could not load (it serves `version`). */
  state: 'ok' | 'stale';
  /** When this replica started serving `version` (unset while it serves its files, before the database was read). */
  loaded_at?: string;
  failed_version?: number;
  error?: string;
  /** The catalog files changed while the database had edits of its own: neither was applied over the other. */
  file_conflict?: string;
  /** `GET /v1/admin/catalog/state` only: what this replica measured of each endpoint it called. */
  endpoints?: EndpointStateView[];
}

/** One endpoint (`<provider>/<upstream model>`) as the answering replica sees it. */
export interface EndpointStateView {
  endpoint: string;
  healthy: boolean;
  consecutive_failures: number;
  /** Milliseconds of its cooldown left (shared by every replica): failures in a row, or the provider's `retry-after` on the gateway key. */
  cooling_for_ms: number;
  /** When the cooldown ends (ISO 8601), while one runs. */
  cooling_until?: string;
  /** `failing` (failures in a row on some replica) or `retry_after` (the provider asked to wait). */
  cooling_reason?: 'failing' | 'retry_after';
  /** The answering replica's last failed calls to it, oldest first. */
  recent_failures: EndpointFailureView[];
  latency_ms?: number;
  throughput?: number;
}

export interface EndpointFailureView {
  at: string;
  error_type: string;
  /** The provider's HTTP status, when it answered one. */
  status?: number;
}

/** `GET /v1/admin/endpoints/{provider}/{upstream model}`: its health, and where the catalog uses it. */
export interface EndpointDetailView extends EndpointStateView {
  object: 'catalog.endpoint';
  provider: string;
  upstream_model: string;
  /** The catalog's models served by it, with the endpoint's priority and weight in each. */
  models: Array<{ id: string; priority: number; weight: number | null }>;
}
