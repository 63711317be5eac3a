import { Injectable } from '@nestjs/common';
import type {
  AdminCatalogChangeRequest,
  AdminCatalogReadRequest,
  CatalogChangeView,
  CatalogDocumentView,
  CatalogEntriesView,
  CatalogStateView,
  EndpointDetailView,
  EndpointStateView,
  CatalogVersionListView,
  CatalogVersionView,
} from '@gw/contracts';
import { GatewayError } from '@gw/errors';
import { currentRequestId } from '@gw/telemetry';
import type { EndpointHealthEntry } from '../routing/endpoint-health.js';
import { ProviderRouter } from '../routing/provider-router.service.js';
import { endpointKeyOf } from '../routing/route-types.js';
import { CatalogService } from './catalog.service.js';
import { CatalogAuditRelay } from './catalog-audit-relay.js';
import { applyCatalogChange, validateCatalogDocument } from './catalog-edits.js';
import { diffCatalogs } from './catalog-diff.js';
import { canonicalCatalogText, type CatalogDocument } from './catalog.loader.js';
import { CatalogSync } from './catalog-sync.service.js';
import { CatalogVersionsStore, type StoredCatalogVersion } from './catalog-versions.store.js';

/** Versions listed by `GET /v1/admin/catalog/versions`, newest first. */
const VERSIONS_LISTED = 100;

/**
 * The operator's admin API over the stored catalog. A change is applied to the newest version
 * under the catalog's lock, validated as the files are, stored as the next version with its
 * author and diff, and announced to every replica; a dry run answers the same diff and stores nothing.
 */
@Injectable()
export class CatalogAdmin {
  constructor(
    private readonly store: CatalogVersionsStore,
    private readonly sync: CatalogSync,
    private readonly router: ProviderRouter,
    private readonly catalog: CatalogService,
    private readonly auditRelay: CatalogAuditRelay,
  ) {}

  async read(request: AdminCatalogReadRequest): Promise<unknown> {
    switch (request.view) {
      case 'export':
        return this.exported(request.version);
      case 'providers':
      case 'models':
        return this.entries(request.view);
      case 'provider':
      case 'model':
        return this.entry(request.view, request.id ?? '');
      case 'versions':
        return { object: 'list', data: (await this.store.list(VERSIONS_LISTED)).map(versionView) } satisfies CatalogVersionListView;
      case 'version':
        return versionView(await this.stored(request.version ?? 0));
      case 'state':
        return { ...this.sync.state(), endpoints: this.endpointHealth() } satisfies CatalogStateView;
      case 'endpoint':
        return this.endpoint(request.id ?? '');
    }
  }

  async change(request: AdminCatalogChangeRequest): Promise<CatalogChangeView> {
    if (request.dryRun) {
      const current = await this.current();
      return this.plan(request, current).view;
    }
    const { stored, result } = await this.store.write(async (latest) => {
      if (!latest) throw new GatewayError(503, 'The catalog is not stored yet; try again', { metadata: { retryable: true } });
      if (request.expectedVersion !== undefined && request.expectedVersion !== latest.version)
        throw new GatewayError(409, `The catalog is at version ${latest.version}, not ${request.expectedVersion}`, {
          metadata: { param: 'if_match' },
        });
      const { view, text } = await this.planAsync(request, latest);
      if (!view.changed) return { result: view };
      const requestId = currentRequestId();
      return {
        append: {
          document: text,
          author: request.operator,
          action: request.action,
          source: 'admin',
          changes: view.changes,
          ...(requestId ? { requestId } : {}),
          ...(request.clientIp ? { clientIp: request.clientIp } : {}),
        },
        result: view,
      };
    });
    if (!stored) return result;
    await this.sync.announce(stored.version);
    // The version is stored with its audit pending: relayed now, or by a later round if this fails.
    await this.auditRelay.drain();
    return { ...result, version: stored.version };
  }

  private async planAsync(
    request: AdminCatalogChangeRequest,
    latest: StoredCatalogVersion,
  ): Promise<{ view: CatalogChangeView; text: string }> {
    if (request.action !== 'rollback') return this.plan(request, latest);
    const target = await this.stored(request.version ?? 0);
    return this.planned(request, latest, JSON.parse(target.document) as CatalogDocument);
  }

  private plan(request: AdminCatalogChangeRequest, latest: StoredCatalogVersion): { view: CatalogChangeView; text: string } {
    if (request.action === 'rollback')
      throw GatewayError.badRequest('A rollback has no dry run; read the version instead', { param: 'dry_run' });
    return this.planned(request, latest, applyCatalogChange(JSON.parse(latest.document) as CatalogDocument, request));
  }

  private planned(
    request: AdminCatalogChangeRequest,
    latest: StoredCatalogVersion,
    next: CatalogDocument,
  ): { view: CatalogChangeView; text: string } {
    validateCatalogDocument(next);
    const text = canonicalCatalogText(next);
    const changes = text === latest.document ? [] : diffCatalogs(JSON.parse(latest.document), next);
    return {
      text,
      view: {
        object: 'catalog.change',
        dry_run: request.dryRun,
        changed: text !== latest.document,
        previous_version: latest.version,
        version: latest.version,
        changes,
      },
    };
  }

  private endpointHealth(): EndpointStateView[] {
    return [...this.router.health.endpoints()].map(endpointStateView);
  }

  /** One endpoint of the served catalog with its health here (its cooldown is every replica's). */
  private endpoint(key: string): EndpointDetailView {
    const models = this.catalog
      .all()
      .flatMap((model) =>
        model.endpoints
          .filter((endpoint) => endpointKeyOf(endpoint) === key)
          .map((endpoint) => ({ id: model.config.id, priority: endpoint.priority ?? 0, weight: endpoint.weight ?? null })),
      );
    if (models.length === 0) throw GatewayError.notFound(`No endpoint ${key} in the catalog (<provider>/<upstream model>)`);
    const slash = key.indexOf('/');
    return {
      object: 'catalog.endpoint',
      provider: key.slice(0, slash),
      upstream_model: key.slice(slash + 1),
      ...endpointStateView(this.router.health.describe(key)),
      models,
    };
  }

  private async exported(version: number | undefined): Promise<CatalogDocumentView> {
    const stored = version === undefined ? await this.current() : await this.stored(version);
    return { version: stored.version, document: stored.document };
  }

  private async entries(kind: 'providers' | 'models'): Promise<CatalogEntriesView> {
    const current = await this.current();
    const document = JSON.parse(current.document) as CatalogDocument;
    return { object: 'list', version: current.version, data: document[kind] as Record<string, unknown>[] };
  }

  private async entry(kind: 'provider' | 'model', id: string): Promise<Record<string, unknown>> {
    const document = JSON.parse((await this.current()).document) as CatalogDocument;
    const found = (kind === 'provider' ? document.providers : document.models).find((entry) => (entry as { id?: unknown }).id === id);
    if (!found) throw GatewayError.notFound(`No ${kind} ${id} in the catalog`);
    return found as Record<string, unknown>;
  }

  private async current(): Promise<StoredCatalogVersion> {
    const latest = await this.store.latest();
    if (!latest) throw new GatewayError(503, 'The catalog is not stored yet; try again', { metadata: { retryable: true } });
    return latest;
  }

  private async stored(version: number): Promise<StoredCatalogVersion> {
    const stored = await this.store.get(version);
    if (!stored) throw GatewayError.notFound(`No catalog version ${version}`);
    return stored;
  }
}

function endpointStateView(entry: EndpointHealthEntry): EndpointStateView {
  return {
    endpoint: entry.endpointKey,
    healthy: entry.healthy,
    consecutive_failures: entry.consecutiveFailures,
    cooling_for_ms: entry.coolingForMs,
    ...(entry.coolingReason && entry.coolingUntil
      ? { cooling_until: new Date(entry.coolingUntil).toISOString(), cooling_reason: entry.coolingReason }
      : {}),
    recent_failures: entry.recentFailures.map((failure) => ({
      at: new Date(failure.at).toISOString(),
      error_type: failure.errorType,
      ...(failure.status === undefined ? {} : { status: failure.status }),
    })),
    ...(entry.latencyMs === undefined ? {} : { latency_ms: Math.round(entry.latencyMs) }),
    ...(entry.throughput === undefined ? {} : { throughput: entry.throughput }),
  };
}

function versionView(stored: StoredCatalogVersion): CatalogVersionView {
  return {
    object: 'catalog.version',
    version: stored.version,
    created_at: stored.createdAt.toISOString(),
    author: stored.author,
    action: stored.action,
    source: stored.source,
    changes: stored.changes,
  };
}
